#![allow(missing_docs)]
use texel_eval::Params;
fn main() {
    let paths = vec![std::path::PathBuf::from("data/train.epd"); 5];
    let params = Params::default();
    let (mut ds, _, _) = texel_tune::load(&paths, &params, &Default::default(), &|_| {}).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..30 {
        ds.rescore(&params);
    }
    println!(
        "rescore {:.1} ns/pos",
        t.elapsed().as_nanos() as f64 / ds.len() as f64 / 30.0
    );
}
