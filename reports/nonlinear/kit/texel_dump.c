/*
** texel's trace writer for Stash's tuner (GPL-3, as Stash): built into Stash's tuner by
** build-stash.sh, never part of texel. With TEXEL_TRACE_OUT=FILE the tuner writes every
** position it loaded as a line of the texel-trace format (version 2: king safety as two
** inner sums per position, squared and clamped in the middlegame, clamped in the endgame),
** the header carrying Stash's values as defaults, and FILE.k (its K in texel's base-10
** form); then exits. With TEXEL_VALUES=FILE (lines "index mid end", as texel export writes
** them from FILE.template) it prints those values as Stash's tuner prints its own, and exits.
** With TEXEL_GAME_IN_SCORE set, each position's search score is written as its game. With
** TEXEL_SIDE=FILE (a line "game score" for each line of the positions file, the score White's
** centipawns, "nan", or "pP": White's win probability P as it is, a teacher's), the positions
** file's search score holds its line number modulo 2^15
** instead, and each position gets its game and its score (a win probability by Stash's K).
*/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner.h"

/* One line of the side file: its game and its score as a win probability (NaN: none). */
typedef struct {
    long game;
    f64 score;
} TexelSide;

/* The parameter that starts at each index: its name and length (0: none starts there). */
typedef struct {
    const u8 *name;
    usize name_len;
    u16 len;
    u16 start; /* the first active entry of Stash's array */
} TexelParam;

static void texel_params(const DisplaySequence *disp, TexelParam *params) {
    static const char piece[] = "PieceValue";
    memset(params, 0, sizeof(TexelParam) * IDX_COUNT);
    params[IDX_PIECE] = (TexelParam) {(const u8 *)piece, sizeof(piece) - 1, 5, 0};
    for (usize b = 0; b < disp->size; ++b) {
        const DisplayBlock *block = &disp->blocks[b];
        if (block->block_type == TypeScorepair) {
            const DisplayScorepair *s = &block->data_union.scorepair;
            params[s->index] = (TexelParam) {s->name.data, s->name.size, 1, 0};
        } else if (block->block_type == TypeScorepairArray) {
            const DisplayScorepairArray *a = &block->data_union.scorepair_array;
            params[a->index] = (TexelParam) {
                a->name.data, a->name.size, (u16)(a->value_end - a->value_start), a->value_start};
        }
    }
}

static void texel_write_header(FILE *f, const TexelParam *params, const TupleVector *base) {
    fprintf(f, "{\"format\": \"texel-trace\", \"version\": 2, \"params\": [");
    for (u16 i = 0; i < IDX_COUNT;) {
        u16 len = params[i].len ? params[i].len : 1;
        fprintf(f, "%s{\"name\": \"", i ? ", " : "");
        if (params[i].len) {
            fwrite(params[i].name, 1, params[i].name_len, f);
        } else {
            fprintf(f, "Unused%u", (unsigned)i);
        }
        fprintf(f, "\", \"len\": %u, \"tapered\": true, \"group\": \"%s\", \"stash_start\": %u, "
            "\"default\": [", len, i >= IDX_KING_SAFETY ? "king_safety" : "linear",
            (unsigned)params[i].start);
        for (u16 k = 0; k < len; ++k) {
            fprintf(f, "%s[%.0f, %.0f]", k ? ", " : "", base->values[i + k][MIDGAME],
                base->values[i + k][ENDGAME]);
        }
        fprintf(f, "]}");
        i += len;
    }
    fprintf(f, "], \"inner\": [{\"name\": \"king_safety\", "
               "\"mid\": {\"shape\": \"square\", \"floor\": 0, \"times\": 0.00390625}, "
               "\"end\": {\"shape\": \"linear\", \"floor\": 0, \"times\": 0.0625}}]}\n");
}

/* One side's king-safety sum: its counts and the part they do not give. */
static void texel_write_safety(FILE *f, const TunerEntry *e, const TupleVector *base, Color c) {
    f64 untraced[2] = {scorepair_midgame(e->king_safety[c]), scorepair_endgame(e->king_safety[c])};
    fprintf(f, "{\"term\": 0, \"side\": %d, \"coeffs\": [", c == WHITE ? 1 : -1);
    int first = 1;
    for (usize t = 0; t < e->tuple_count; ++t) {
        const TunerTuple *tuple = &e->tuples[t];
        const i8 coeff = c == WHITE ? tuple->wcoeff : tuple->bcoeff;
        if (!is_param_safety_term(tuple->index) || !coeff) continue;
        fprintf(f, "%s[%u, %d]", first ? "" : ", ", (unsigned)tuple->index, coeff);
        first = 0;
        untraced[0] -= coeff * base->values[tuple->index][MIDGAME];
        untraced[1] -= coeff * base->values[tuple->index][ENDGAME];
    }
    fprintf(f, "], \"offset\": [%.17g, %.17g]}", untraced[0], untraced[1]);
}

static void texel_write_entry(FILE *f, const TunerEntry *e, const TupleVector *base,
    const TexelSide *side) {
    /* The linear part the counts do not give: the whole tapered score, less Stash's own
       (integer) king safety, less the counted terms. */
    const Score wmg = scorepair_midgame(e->king_safety[WHITE]);
    const Score bmg = scorepair_midgame(e->king_safety[BLACK]);
    const Score weg = scorepair_endgame(e->king_safety[WHITE]);
    const Score beg = scorepair_endgame(e->king_safety[BLACK]);
    f64 rest[2] = {
        scorepair_midgame(e->tapered_eval)
            - (i16_max(0, wmg) * wmg / 256 - i16_max(0, bmg) * bmg / 256),
        scorepair_endgame(e->tapered_eval) - (i16_max(0, weg) / 16 - i16_max(0, beg) / 16),
    };
    fprintf(f, "{\"result\": %g, \"phase\": %.17g, \"scale\": %.17g, \"coeffs\": [",
        e->game_result, e->mg_factor, e->eg_scalefactor);
    int first = 1;
    for (usize t = 0; t < e->tuple_count; ++t) {
        const TunerTuple *tuple = &e->tuples[t];
        const int count = tuple->wcoeff - tuple->bcoeff;
        if (is_param_safety_term(tuple->index) || !count) continue;
        fprintf(f, "%s[%u, %d]", first ? "" : ", ", (unsigned)tuple->index, count);
        first = 0;
        rest[0] -= count * base->values[tuple->index][MIDGAME];
        rest[1] -= count * base->values[tuple->index][ENDGAME];
    }
    fprintf(f, "], \"offset\": %.17g, \"offset_end\": %.17g, \"inner\": [",
        e->mg_factor * rest[0], rest[1]);
    texel_write_safety(f, e, base, WHITE);
    fprintf(f, ", ");
    texel_write_safety(f, e, base, BLACK);
    fprintf(f, "]");
    /* With TEXEL_GAME_IN_SCORE set, the positions file carries each position's game
       (below 2^15) in the search score Stash reads and, at its lambda of 1, never uses; Stash
       turns it to White's view (negated with Black to move), so its size is the game: the
       trace gets it as the position's game, and texel holds out whole games. */
    if (side) {
        fprintf(f, ", \"game\": %ld", side->game);
        if (!isnan(side->score)) fprintf(f, ", \"score\": %.17g", side->score);
    } else if (getenv("TEXEL_GAME_IN_SCORE")) {
        fprintf(f, ", \"game\": %d", abs((int)e->search_score));
    }
    fprintf(f, "}\n");
}

/* The side file: each line of the positions file, its game and White's score. */
typedef struct {
    TexelSide *lines;
    usize size;
    usize next; /* the first line the next loaded position may be */
} TexelSides;

static void texel_read_sides(const char *path, TexelSides *sides, f64 k) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(EXIT_FAILURE);
    }
    usize capacity = 1 << 20;
    sides->lines = malloc(sizeof(TexelSide) * capacity);
    sides->size = 0;
    sides->next = 0;
    long game;
    char score[64];
    while (fscanf(f, "%ld %63s", &game, score) == 2) {
        if (sides->size == capacity) {
            capacity *= 2;
            sides->lines = realloc(sides->lines, sizeof(TexelSide) * capacity);
        }
        /* "p0.73": a win probability already (a teacher's, White's view), taken as it is. */
        const int given = score[0] == 'p';
        const f64 cp = given ? atof(score + 1) : strcmp(score, "nan") ? atof(score) : NAN;
        const f64 p = given || isnan(cp) ? cp : 1.0 / (1.0 + exp(-k * cp));
        sides->lines[sides->size++] = (TexelSide) {game, p};
    }
    fclose(f);
}

/* The line a loaded position came from: the first from `next` on whose number modulo 2^15 is
   the one the position's search score carries (Stash skips few lines, never 2^15 in a row). */
static const TexelSide *texel_side_of(TexelSides *sides, const TunerEntry *e) {
    const usize mod = (usize)abs((int)e->search_score);
    const usize line = sides->next + ((mod + 32768 - sides->next % 32768) % 32768);
    if (line >= sides->size) {
        fprintf(stderr, "TEXEL_SIDE: no line %zu for a loaded position\n", (size_t)line);
        exit(EXIT_FAILURE);
    }
    sides->next = line + 1;
    return &sides->lines[line];
}

static FILE *texel_open(const char *path, const char *suffix) {
    char name[4096];
    snprintf(name, sizeof(name), "%s%s", path, suffix);
    FILE *f = fopen(name, "w");
    if (!f) {
        perror(name);
        exit(EXIT_FAILURE);
    }
    return f;
}

/* Prints the values of `path` ("index mid end" lines) as Stash's tuner prints its own. */
static void texel_show_values(const char *path, const DisplaySequence *disp, const TupleVector *base) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(EXIT_FAILURE);
    }
    TupleVector delta;
    tp_vector_reset(&delta);
    unsigned index;
    double mid, end;
    while (fscanf(f, "%u %lf %lf", &index, &mid, &end) == 3) {
        if (index >= IDX_COUNT) {
            fprintf(stderr, "%s: index %u is not Stash's\n", path, index);
            exit(EXIT_FAILURE);
        }
        delta.values[index][MIDGAME] = mid - base->values[index][MIDGAME];
        delta.values[index][ENDGAME] = end - base->values[index][ENDGAME];
    }
    fclose(f);
    disp_sequence_show(disp, base, &delta);
}

void texel_trace_dump(const TunerDataset *dataset, f64 k) {
    const char *values = getenv("TEXEL_VALUES");
    const char *out = getenv("TEXEL_TRACE_OUT");
    if (!values && !out) return;
    DisplaySequence disp;
    TupleVector base;
    static TexelParam params[IDX_COUNT];
    init_disp_sequence_and_base_values(&disp, &base);
    texel_params(&disp, params);
    if (values) {
        texel_show_values(values, &disp, &base);
        exit(EXIT_SUCCESS);
    }
    FILE *f = texel_open(out, "");
    texel_write_header(f, params, &base);
    const char *side_path = getenv("TEXEL_SIDE");
    TexelSides sides = {NULL, 0, 0};
    if (side_path) texel_read_sides(side_path, &sides, k);
    for (usize i = 0; i < dataset->size; ++i) {
        const TunerEntry *e = &dataset->entries[i];
        texel_write_entry(f, e, &base, side_path ? texel_side_of(&sides, e) : NULL);
    }
    free(sides.lines);
    fclose(f);
    /* Stash's sigmoid is 1 / (1 + exp(-k q)); texel's base-10 K is k * 400 / ln 10. */
    FILE *kf = texel_open(out, ".k");
    fprintf(kf, "%.17g\n", k * 400.0 / log(10.0));
    fclose(kf);
    /* The values template: texel export fills it into the lines TEXEL_VALUES reads. */
    FILE *t = texel_open(out, ".template");
    for (u16 i = 0; i < IDX_COUNT;) {
        u16 len = params[i].len ? params[i].len : 1;
        for (u16 j = 0; j < len; ++j) {
            fprintf(t, "%u {{", (unsigned)(i + j));
            if (params[i].len) {
                fwrite(params[i].name, 1, params[i].name_len, t);
            } else {
                fprintf(t, "Unused%u", (unsigned)i);
            }
            fprintf(t, "[%u].mid}} {{", (unsigned)j);
            if (params[i].len) {
                fwrite(params[i].name, 1, params[i].name_len, t);
            } else {
                fprintf(t, "Unused%u", (unsigned)i);
            }
            fprintf(t, "[%u].end}}\n", (unsigned)j);
        }
        i += len;
    }
    fclose(t);
    printf("texel trace: %zu positions to %s\n", (size_t)dataset->size, out);
    exit(EXIT_SUCCESS);
}
