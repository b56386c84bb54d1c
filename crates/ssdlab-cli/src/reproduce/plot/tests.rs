use super::bars::BarsFigure;
use super::frame::Layout;
use super::lines::{LinesFigure, ScatterFigure};
use super::series::SeriesFigure;
use super::*;
use std::path::PathBuf;

/// The smallest text allowed at the printed width, in points.
const MIN_PT: f64 = 7.0;

/// A fresh directory for test `name`.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssdlab-plot-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The number in attribute `name="…"` of every element of `svg` that has it.
fn attrs(svg: &str, name: &str) -> Vec<String> {
    let key = format!(" {name}=\"");
    svg.match_indices(&key)
        .map(|(i, _)| {
            let rest = &svg[i + key.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect()
}

/// The SVG's printed width in inches and its pixels per inch.
fn printed(svg: &str) -> (f64, f64) {
    let w = attrs(svg, "width")[0].clone();
    let inches: f64 = w
        .strip_suffix("in")
        .expect("width in inches")
        .parse()
        .unwrap();
    let view = attrs(svg, "viewBox")[0].clone();
    let px: f64 = view.split(' ').nth(2).unwrap().parse().unwrap();
    (inches, px / inches)
}

/// Every font size of `svg` in points at its printed size.
fn font_pts(svg: &str) -> Vec<f64> {
    let (_, ppi) = printed(svg);
    attrs(svg, "font-size")
        .iter()
        .map(|s| s.parse::<f64>().unwrap() / ppi * 72.0)
        .collect()
}

/// Width, height and pixels per metre of a PNG.
fn png_header(path: &Path) -> (u32, u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[1..4], b"PNG");
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let phys = b
        .windows(4)
        .position(|w| w == b"pHYs")
        .expect("a pHYs chunk");
    (be(16), be(20), be(phys + 4))
}

fn below(a: &((i32, i32), (i32, i32)), b: &((i32, i32), (i32, i32))) -> bool {
    a.0 .1 >= b.1 .1
}

struct Sample {
    groups: Vec<String>,
    series: Vec<(String, Vec<f64>)>,
}

/// Three schedulers on three traces and their average.
fn brr_like() -> Sample {
    Sample {
        groups: strings(&["hm_0-slice7016", "wdev_3", "financial1-50k", "average"]),
        series: vec![
            ("async-fifo".into(), vec![1.0, 1.0, 1.0, 1.0]),
            ("piq".into(), vec![0.8, 0.95, 0.7, 0.82]),
            ("brr".into(), vec![0.6, 0.9, 0.65, 0.72]),
        ],
    }
}

/// Five schemes on nine workloads with long names.
fn dsftl_like() -> Sample {
    let groups = strings(&[
        "homes-replay-1k",
        "mail-cheetah-10k",
        "home1-like",
        "home2-like",
        "home3-like",
        "online-like",
        "webmail-like",
        "webresearch-like",
        "average",
    ]);
    let series = ["static", "static-cwdp", "dynamic", "hipa", "ds-ftl"]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                n.to_string(),
                (0..9)
                    .map(|g| 1.0 - 0.05 * i as f64 - 0.01 * g as f64)
                    .collect(),
            )
        })
        .collect();
    Sample { groups, series }
}

#[test]
fn bars_put_the_legend_above_the_plot_area_and_text_at_7_pt_or_more() {
    let d = dir("bars");
    let s = brr_like();
    let paper = [Mark {
        series: 2,
        at: 3,
        value: 0.762,
    }];
    let ranges = [Range::over(2, 3, &[Some(0.6), Some(0.9), Some(0.65)]).unwrap()];
    let b = Bars {
        title: "Normalized read waiting time",
        y_label: "normalized to Async-FIFO",
        groups: &s.groups,
        series: &s.series,
        paper: &paper,
        ranges: &ranges,
        ..Default::default()
    };
    let layout: Layout = save(&d.join("b.svg"), &BarsFigure::new(&b)).unwrap();
    let legend = layout.legend.expect("a legend");
    assert!(below(&layout.plot, &legend), "{layout:?}");
    assert!(legend.0 .1 >= 0 && legend.1 .0 <= layout.size.0 as i32);
    assert_eq!(layout.width, Width::Column);
    let svg = std::fs::read_to_string(d.join("b.svg")).unwrap();
    let (inches, ppi) = printed(&svg);
    assert_eq!(inches, 3.5);
    assert_eq!(ppi, PX_PER_IN);
    let pts = font_pts(&svg);
    assert!(!pts.is_empty());
    assert!(pts.iter().all(|&p| p >= MIN_PT), "{pts:?}");
    // A light major grid only: one line per y tick, no minor lines.
    let grid = svg.matches("stroke=\"#DEDEDE\"").count();
    assert!((3..=7).contains(&grid), "{grid} grid lines");
    assert!(!svg.contains("opacity=\"0.1\""), "a minor grid");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn every_bar_point_mark_and_whisker_has_hover_text() {
    let d = dir("hover");
    let s = brr_like();
    let paper = [Mark {
        series: 2,
        at: 3,
        value: 0.762,
    }];
    let ranges = [Range::over(1, 3, &[Some(0.8), Some(0.95), Some(0.7)]).unwrap()];
    let b = Bars {
        title: "t",
        y_label: "y",
        groups: &s.groups,
        series: &s.series,
        paper: &paper,
        ranges: &ranges,
        ..Default::default()
    };
    let mut hover = svg::Hover::default();
    let fig = BarsFigure::new(&b);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, fig.size()).into_drawing_area();
        fig.draw(&root, &mut hover).unwrap();
    }
    assert_eq!(hover.len(), 12 + 1 + 1);
    bars(&d.join("b.svg"), &b).unwrap();
    let svg = std::fs::read_to_string(d.join("b.svg")).unwrap();
    assert_eq!(svg.matches("<title>").count(), 14);
    assert!(svg.contains("<title>brr, wdev_3: 0.9</title>"));
    assert!(svg.contains("<title>paper, brr, average: 0.762</title>"));
    assert!(svg.contains("<title>piq, average: min 0.7 … max 0.95 of 3 runs</title>"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_paper_marker_and_its_legend_entry_appear_only_with_a_paper_value() {
    let d = dir("paper");
    let s = brr_like();
    let with = Bars {
        title: "t",
        y_label: "y",
        groups: &s.groups,
        series: &s.series,
        paper: &[Mark {
            series: 2,
            at: 3,
            value: 0.762,
        }],
        ..Default::default()
    };
    let without = Bars { paper: &[], ..with };
    bars(&d.join("with.svg"), &with).unwrap();
    bars(&d.join("without.svg"), &without).unwrap();
    let read = |n: &str| std::fs::read_to_string(d.join(n)).unwrap();
    let (a, b) = (read("with.svg"), read("without.svg"));
    assert!(a.contains(">\npaper\n</text>"), "no legend entry");
    assert!(a.contains("<title>paper, brr"));
    assert!(!b.contains("paper"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_png_of_the_canvas_size_at_300_px_per_inch_is_written_beside_each_svg() {
    let d = dir("png");
    let s = brr_like();
    let xs = strings(&["1", "2", "4", "8"]);
    let b = Bars {
        title: "t",
        y_label: "y",
        groups: &s.groups,
        series: &s.series,
        ..Default::default()
    };
    let l = Lines {
        title: "t",
        x_label: "x",
        y_label: "y",
        xs: &xs,
        series: &s.series,
        ..Default::default()
    };
    let pts = vec![("a".to_string(), vec![(0.0, 1.0), (2.0, 3.0)])];
    let sc = Scatter {
        title: "t",
        x_label: "x",
        y_label: "y",
        series: &pts,
    };
    let ser = [Series {
        name: "vaq".into(),
        ys: vec![1.0, 4.0, 2.0],
        mean: 7.0 / 3.0,
    }];
    let sizes = [
        (
            "b",
            save(&d.join("b.svg"), &BarsFigure::new(&b)).unwrap().size,
        ),
        (
            "l",
            save(&d.join("l.svg"), &LinesFigure::new(&l)).unwrap().size,
        ),
        (
            "s",
            save(&d.join("s.svg"), &ScatterFigure::new(&sc))
                .unwrap()
                .size,
        ),
        (
            "t",
            save(&d.join("t.svg"), &SeriesFigure::new("t", "y", &ser))
                .unwrap()
                .size,
        ),
    ];
    for (name, (w, h)) in sizes {
        assert_eq!(w, 1050, "{name}");
        let (pw, ph, ppm) = png_header(&d.join(format!("{name}.png")));
        assert_eq!((pw, ph), (w, h), "{name}");
        assert_eq!(ppm, 11811, "{name}: 300 px/in");
        // The PNG has drawn text and bars: not white everywhere.
        assert!(
            std::fs::metadata(d.join(format!("{name}.png")))
                .unwrap()
                .len()
                > 5_000
        );
        let svg = std::fs::read_to_string(d.join(format!("{name}.svg"))).unwrap();
        assert!(font_pts(&svg).iter().all(|&p| p >= MIN_PT), "{name}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn many_bars_take_the_page_width_and_long_labels_wrap_or_turn() {
    let s = dsftl_like();
    let b = Bars {
        title: "Normalized mean read latency",
        y_label: "normalized to static",
        groups: &s.groups,
        series: &s.series,
        ..Default::default()
    };
    let fig = BarsFigure::new(&b);
    assert_eq!(fig.size().0, 2100);
    let d = dir("page");
    let layout = save(&d.join("b.svg"), &fig).unwrap();
    assert_eq!(layout.width, Width::Page);
    let svg = std::fs::read_to_string(d.join("b.svg")).unwrap();
    assert_eq!(printed(&svg).0, 7.0);
    assert!(font_pts(&svg).iter().all(|&p| p >= MIN_PT));
    // Wrapped after a hyphen rather than overlapping its neighbours.
    assert!(svg.contains(">\nhomes-\n</text>") || layout.turned);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn dense_categories_are_labelled_sparsely_rather_than_overlapping() {
    let xs: Vec<String> = (0..64).map(|i| i.to_string()).collect();
    let series = vec![("static".to_string(), vec![30.0; 64])];
    let l = Lines {
        title: "Duplicate rate of each plane",
        x_label: "plane",
        y_label: "%",
        xs: &xs,
        series: &series,
        ..Default::default()
    };
    let d = dir("dense");
    save(&d.join("l.svg"), &LinesFigure::new(&l)).unwrap();
    let svg = std::fs::read_to_string(d.join("l.svg")).unwrap();
    assert!(svg.contains(">\n0\n</text>"));
    assert!(!svg.contains(">\n3\n</text>"), "every plane labelled");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_percent_sign_keeps_its_number_on_its_line() {
    let width = measure("aaaa 70", TICK_PT) + 1.0;
    assert_eq!(
        wrap("aaaa 70 % reads", TICK_PT, width),
        ["aaaa", "70 %", "reads"]
    );
    assert_eq!(wrap("% alone", TICK_PT, 1.0), ["%", "alone"]);
}

#[test]
fn a_long_title_and_y_label_wrap_inside_the_canvas() {
    let s = brr_like();
    let title = "Package contention time (bus wait behind another die of the package), \
                 normalized to VAQ on every workload";
    let b = Bars {
        title,
        y_label: "AWT of the requests that waited for a device-queue slot (ms)",
        groups: &s.groups,
        series: &s.series,
        ..Default::default()
    };
    let width = f64::from(Width::Column.px() as i32 - 2 * super::frame::MARGIN);
    let lines = wrap(title, TITLE_PT, width);
    assert!(lines.len() >= 2);
    assert!(lines.iter().all(|l| measure(l, TITLE_PT) <= width));
    let d = dir("wrap");
    let layout = save(&d.join("b.svg"), &BarsFigure::new(&b)).unwrap();
    let svg = std::fs::read_to_string(d.join("b.svg")).unwrap();
    assert!(svg.contains(&format!(">\n{}\n</text>", lines[0])));
    assert!(layout.plot.0 .0 > 0 && layout.plot.1 .0 < 1050);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_range_needs_two_different_runs() {
    assert_eq!(Range::over(0, 1, &[Some(1.0)]), None);
    assert_eq!(Range::over(0, 1, &[Some(1.0), Some(1.0), None]), None);
    let r = Range::over(2, 5, &[Some(0.5), None, Some(0.9), Some(0.7)]).unwrap();
    assert_eq!((r.series, r.at, r.lo, r.hi, r.runs), (2, 5, 0.5, 0.9, 3));
}

#[test]
fn tick_and_hover_values_are_short() {
    assert_eq!(tick(1.0), "1");
    assert_eq!(tick(0.25), "0.25");
    assert_eq!(tick(12000.0), "12000");
    assert_eq!(svg::value(0.76234), "0.7623");
    assert_eq!(svg::value(1234.6), "1235");
    assert_eq!(svg::value(12.5), "12.5");
}

#[test]
fn a_log_axis_has_a_tick_per_decade_and_bars_from_its_bottom() {
    let groups = strings(&["a", "b"]);
    let series = vec![
        ("t".to_string(), vec![3.0, 5.0e4]),
        ("u".into(), vec![0.0, 20.0]),
    ];
    let b = Bars {
        title: "t",
        y_label: "us",
        groups: &groups,
        series: &series,
        log_y: true,
        ..Default::default()
    };
    let d = dir("log");
    bars(&d.join("b.svg"), &b).unwrap();
    let svg = std::fs::read_to_string(d.join("b.svg")).unwrap();
    for label in ["1", "10", "100", "1000", "10000", "100000"] {
        assert!(
            svg.contains(&format!(">\n{label}\n</text>")),
            "no tick {label}"
        );
    }
    assert_eq!(svg.matches("stroke=\"#DEDEDE\"").count(), 6);
    // The bar of 0 cannot show on a log axis: its hover box has the least height.
    let heights: Vec<i32> = attrs(&svg, "height")
        .iter()
        .filter_map(|h| h.parse().ok())
        .collect();
    assert!(svg.contains("<title>u, a: 0</title>"));
    assert!(heights.contains(&1), "{heights:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn png_text_is_placed_as_the_svg_places_it() {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let bounds = |style: &TextStyle| {
        let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
        raster::text_pixels("average", style, (500, 300), |x, y, c| {
            if c > 0.5 {
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        });
        (x0, x1, y0, y1)
    };
    let width = measure("average", TICK_PT);
    // Centred: as far left of the anchor as right of it; "Top": below the anchor.
    let (x0, x1, y0, y1) = bounds(&text(TICK_PT).pos(Pos::new(HPos::Center, VPos::Top)));
    assert!(((500 - x0) - (x1 - 500)).abs() <= 3, "{x0} {x1}");
    assert!((f64::from(x1 - x0) - width).abs() < 6.0);
    assert!(y0 >= 300 && y1 < 300 + px(TICK_PT) as i32, "{y0} {y1}");
    // Turned 90° to read upwards and ending at the anchor (an x label under its tick):
    // it hangs below the anchor, one line wide.
    let turned = text(TICK_PT)
        .transform(FontTransform::Rotate270)
        .pos(Pos::new(HPos::Right, VPos::Center));
    let (x0, x1, y0, y1) = bounds(&turned);
    assert!(y0 >= 298 && f64::from(y1 - 300) > width - 6.0, "{y0} {y1}");
    assert!(x1 - x0 < px(TICK_PT) as i32, "{x0} {x1}");
}

#[test]
fn a_flat_series_gets_a_band_whose_ticks_differ() {
    assert_eq!(super::lines::span([0.0, 0.0, 0.0].into_iter()), 0.0..1.0);
    let r = super::lines::span([5.0, 5.0].into_iter());
    assert!(
        r.start < 5.0 && r.end > 5.0 && r.end - r.start >= 0.9,
        "{r:?}"
    );
    let r = super::lines::span([-2.0].into_iter());
    assert!(r.start < -2.0 && r.end > -2.0, "{r:?}");
    // A spread series keeps its own span.
    let r = super::lines::span([1.0, 3.0].into_iter());
    assert!(
        r.start < 1.0 && r.start >= 0.0 && r.end > 3.0 && r.end < 3.5,
        "{r:?}"
    );
}
