//! One self-contained HTML page: a title, lines saying what the run was, and sections of
//! figures (inline SVG with a reading guide) and tables. Nothing is fetched: the page opens
//! from disk in any browser.

use std::fmt::Write as _;
use std::path::Path;

/// A page being built.
#[derive(Clone, Debug, Default)]
pub struct Page {
    title: String,
    body: String,
}

/// Text made safe for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:sans-serif;max-width:820px;margin:2em auto;color:#222}\
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}\
figure{margin:1.2em 0}figcaption{font-size:.9em;color:#444;margin-top:.3em}\
table{border-collapse:collapse;font-size:.85em}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}\
td:first-child,th:first-child{text-align:left}ul.about{color:#444;font-size:.9em}";

impl Page {
    /// A page with a title and lines describing the run.
    pub fn new(title: &str, about: &[String]) -> Page {
        let mut body = format!("<h1>{}</h1>\n<ul class=\"about\">\n", escape(title));
        for line in about {
            let _ = writeln!(body, "<li>{}</li>", escape(line));
        }
        body.push_str("</ul>\n");
        Page {
            title: title.to_string(),
            body,
        }
    }

    /// Starts a section.
    pub fn heading(&mut self, text: &str) {
        let _ = writeln!(self.body, "<h2>{}</h2>", escape(text));
    }

    /// A paragraph.
    pub fn note(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p>{}</p>", escape(text));
    }

    /// A figure: `svg` (from [`crate::plot`]) and the one-line guide to reading it. `id`
    /// names the figure in the page.
    pub fn figure(&mut self, id: &str, svg: &str, guide: &str) {
        let svg = svg.trim_start_matches(|c| c != '<');
        let _ = writeln!(
            self.body,
            "<figure id=\"{}\">\n{svg}\n<figcaption>{}</figcaption>\n</figure>",
            escape(id),
            escape(guide)
        );
    }

    /// A table with a header row.
    pub fn table(&mut self, head: &[&str], rows: &[Vec<String>]) {
        self.body.push_str("<table>\n<tr>");
        for h in head {
            let _ = write!(self.body, "<th>{}</th>", escape(h));
        }
        self.body.push_str("</tr>\n");
        for row in rows {
            self.body.push_str("<tr>");
            for cell in row {
                let _ = write!(self.body, "<td>{}</td>", escape(cell));
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</table>\n");
    }

    /// The whole document.
    pub fn html(&self) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
             <style>{STYLE}</style>\n</head>\n<body>\n{}</body>\n</html>\n",
            escape(&self.title),
            self.body
        )
    }

    /// Writes the document to `path` atomically (a temporary file, then a rename).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        texel_files::write_atomically(path, self.html().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_figures_are_inline() {
        let mut page = Page::new("a <b> & c", &["K \"1.5\"".to_string()]);
        page.figure("f1", "<svg></svg>", "read <this>");
        page.table(&["x"], &[vec!["1 < 2".to_string()]]);
        let html = page.html();
        assert!(html.contains("<h1>a &lt;b&gt; &amp; c</h1>"));
        assert!(html.contains("<li>K &quot;1.5&quot;</li>"));
        assert!(html.contains("<figure id=\"f1\">\n<svg></svg>"));
        assert!(html.contains("<figcaption>read &lt;this&gt;</figcaption>"));
        assert!(html.contains("<td>1 &lt; 2</td>"));
    }
}
