//! A results table of typed cells (one row per sweep point), written as CSV or as
//! Parquet, chosen by the output file's extension.
//!
//! Each cell keeps its text, exactly as the CSV shows it (numbers as the JSON report
//! prints them), and its value, from which a Parquet column takes its type: a column
//! whose cells are all integers is `INT64`, all numbers `DOUBLE`, all booleans
//! `BOOLEAN`, anything else a UTF-8 string; every column is optional (an empty cell is a
//! null). The Parquet writer is the `parquet` crate without Arrow: its low-level column
//! writers, uncompressed, one row group.

use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::sync::Arc;

/// The value of a cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Text,
}

/// One cell: its CSV text and its typed value.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    pub value: Value,
}

impl Cell {
    /// An empty cell (a null).
    pub fn null() -> Cell {
        Cell {
            text: String::new(),
            value: Value::Null,
        }
    }

    /// A text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell {
            text: s.into(),
            value: Value::Text,
        }
    }

    /// An integer cell.
    pub fn int(i: i64) -> Cell {
        Cell {
            text: i.to_string(),
            value: Value::Int(i),
        }
    }

    /// A cell of a value of the JSON report.
    pub fn json(v: &serde_json::Value) -> Cell {
        use serde_json::Value as J;
        match v {
            J::Null => Cell::null(),
            J::String(s) => Cell::text(s.clone()),
            J::Bool(b) => Cell {
                text: b.to_string(),
                value: Value::Bool(*b),
            },
            J::Number(n) => Cell {
                text: n.to_string(),
                // An unsigned integer beyond i64 stays exact as text.
                value: match (n.as_i64(), n.as_u64(), n.as_f64()) {
                    (Some(i), _, _) => Value::Int(i),
                    (None, Some(_), _) => Value::Text,
                    (None, None, Some(f)) => Value::Float(f),
                    (None, None, None) => Value::Text,
                },
            },
            other => Cell::text(other.to_string()),
        }
    }

    /// A cell of a grid value.
    pub fn toml(v: &toml::Value) -> Cell {
        use toml::Value as T;
        match v {
            T::String(s) => Cell::text(s.clone()),
            T::Integer(i) => Cell::int(*i),
            T::Float(f) => Cell {
                text: v.to_string(),
                value: Value::Float(*f),
            },
            T::Boolean(b) => Cell {
                text: b.to_string(),
                value: Value::Bool(*b),
            },
            other => Cell::text(other.to_string()),
        }
    }
}

/// A table: a header and rows of as many cells.
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// What a file extension asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Parquet,
}

impl Format {
    /// `.parquet` (any case) is Parquet; anything else CSV.
    pub fn of(path: &std::path::Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("parquet") => Format::Parquet,
            _ => Format::Csv,
        }
    }
}

impl Table {
    /// The table as CSV text (fields quoted when they hold a comma, a quote or a line
    /// break).
    pub fn to_csv(&self) -> String {
        let mut text = String::new();
        let mut line = |cells: &mut dyn Iterator<Item = &str>| {
            let fields: Vec<String> = cells.map(csv_field).collect();
            text.push_str(&fields.join(","));
            text.push('\n');
        };
        line(&mut self.header.iter().map(String::as_str));
        for row in &self.rows {
            line(&mut row.iter().map(|c| c.text.as_str()));
        }
        text
    }

    /// The table as a Parquet file written to `w`.
    ///
    /// # Errors
    /// What the Parquet writer or `w` reports.
    pub fn write_parquet<W: std::io::Write + Send>(
        &self,
        w: W,
    ) -> Result<(), parquet::errors::ParquetError> {
        let kinds: Vec<Kind> = (0..self.header.len())
            .map(|j| Kind::of(self.rows.iter().map(|r| &r[j].value)))
            .collect();
        let fields = self
            .header
            .iter()
            .zip(&kinds)
            .map(|(name, kind)| kind.field(name).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        let schema = Type::group_type_builder("sweep")
            .with_fields(fields)
            .build()?;
        let props = WriterProperties::builder()
            .set_created_by(format!("ssdlab {}", env!("CARGO_PKG_VERSION")))
            .build();
        let mut file = SerializedFileWriter::new(w, Arc::new(schema), Arc::new(props))?;
        let mut group = file.next_row_group()?;
        let mut j = 0;
        while let Some(mut col) = group.next_column()? {
            let cells: Vec<&Cell> = self.rows.iter().map(|r| &r[j]).collect();
            let def: Vec<i16> = cells
                .iter()
                .map(|c| i16::from(c.value != Value::Null))
                .collect();
            let present = cells.iter().filter(|c| c.value != Value::Null);
            match col.untyped() {
                ColumnWriter::Int64ColumnWriter(w) => {
                    let v: Vec<i64> = present
                        .map(|c| match c.value {
                            Value::Int(i) => i,
                            _ => unreachable!("an INT64 column holds integers"),
                        })
                        .collect();
                    w.write_batch(&v, Some(&def), None)?;
                }
                ColumnWriter::DoubleColumnWriter(w) => {
                    let v: Vec<f64> = present
                        .map(|c| match c.value {
                            Value::Int(i) => i as f64,
                            Value::Float(f) => f,
                            _ => unreachable!("a DOUBLE column holds numbers"),
                        })
                        .collect();
                    w.write_batch(&v, Some(&def), None)?;
                }
                ColumnWriter::BoolColumnWriter(w) => {
                    let v: Vec<bool> = present
                        .map(|c| matches!(c.value, Value::Bool(true)))
                        .collect();
                    w.write_batch(&v, Some(&def), None)?;
                }
                ColumnWriter::ByteArrayColumnWriter(w) => {
                    let v: Vec<ByteArray> =
                        present.map(|c| ByteArray::from(c.text.as_str())).collect();
                    w.write_batch(&v, Some(&def), None)?;
                }
                _ => unreachable!("the schema has no other column type"),
            }
            col.close()?;
            j += 1;
        }
        group.close()?;
        file.close()?;
        Ok(())
    }
}

/// The Parquet type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Bool,
    Text,
}

impl Kind {
    /// The narrowest type that holds every non-null value (text when there is none).
    fn of<'a>(values: impl Iterator<Item = &'a Value>) -> Kind {
        let mut kind: Option<Kind> = None;
        for v in values {
            let k = match v {
                Value::Null => continue,
                Value::Int(_) => Kind::Int,
                Value::Float(_) => Kind::Float,
                Value::Bool(_) => Kind::Bool,
                Value::Text => Kind::Text,
            };
            kind = Some(match (kind, k) {
                (None, k) => k,
                (Some(a), b) if a == b => a,
                (Some(Kind::Int | Kind::Float), Kind::Int | Kind::Float) => Kind::Float,
                _ => Kind::Text,
            });
        }
        kind.unwrap_or(Kind::Text)
    }

    fn field(self, name: &str) -> Result<Type, parquet::errors::ParquetError> {
        let (physical, logical) = match self {
            Kind::Int => (Physical::INT64, None),
            Kind::Float => (Physical::DOUBLE, None),
            Kind::Bool => (Physical::BOOLEAN, None),
            Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        };
        Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    fn table() -> Table {
        Table {
            header: vec![
                "depth".into(),
                "name".into(),
                "mean".into(),
                "seed".into(),
                "ok".into(),
                "mixed".into(),
            ],
            rows: vec![
                vec![
                    Cell::toml(&toml::Value::Integer(4)),
                    Cell::text("a,b"),
                    Cell::json(&serde_json::json!(12.5)),
                    Cell::null(),
                    Cell::json(&serde_json::json!(true)),
                    Cell::json(&serde_json::json!(3)),
                ],
                vec![
                    Cell::toml(&toml::Value::Integer(8)),
                    Cell::text("say \"x\""),
                    Cell::json(&serde_json::json!(7)),
                    Cell::int(3),
                    Cell::json(&serde_json::json!(false)),
                    Cell::json(&serde_json::json!("n/a")),
                ],
            ],
        }
    }

    #[test]
    fn csv_quotes_what_needs_it_and_keeps_json_numbers() {
        assert_eq!(
            table().to_csv(),
            "depth,name,mean,seed,ok,mixed\n4,\"a,b\",12.5,,true,3\n8,\"say \"\"x\"\"\",7,3,false,n/a\n"
        );
    }

    #[test]
    fn kinds_widen_from_int_to_float_to_text() {
        use Value::*;
        assert_eq!(Kind::of([Int(1), Null, Int(2)].iter()), Kind::Int);
        assert_eq!(Kind::of([Int(1), Float(0.5)].iter()), Kind::Float);
        assert_eq!(Kind::of([Bool(true), Null].iter()), Kind::Bool);
        assert_eq!(Kind::of([Int(1), Bool(true)].iter()), Kind::Text);
        assert_eq!(Kind::of([Null, Null].iter()), Kind::Text);
    }

    #[test]
    fn parquet_reads_back_typed_with_nulls() {
        let mut buf = Vec::new();
        table().write_parquet(&mut buf).unwrap();
        let reader = SerializedFileReader::new(bytes::Bytes::from(buf)).unwrap();
        let schema = reader.metadata().file_metadata().schema_descr_ptr();
        let types: Vec<Physical> = schema.columns().iter().map(|c| c.physical_type()).collect();
        assert_eq!(
            types,
            [
                Physical::INT64,
                Physical::BYTE_ARRAY,
                Physical::DOUBLE,
                Physical::INT64,
                Physical::BOOLEAN,
                Physical::BYTE_ARRAY
            ]
        );
        let rows: Vec<Vec<Field>> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| {
                r.unwrap()
                    .get_column_iter()
                    .map(|(_, f)| f.clone())
                    .collect()
            })
            .collect();
        assert_eq!(
            rows[0],
            [
                Field::Long(4),
                Field::Str("a,b".into()),
                Field::Double(12.5),
                Field::Null,
                Field::Bool(true),
                Field::Str("3".into()),
            ]
        );
        assert_eq!(
            rows[1],
            [
                Field::Long(8),
                Field::Str("say \"x\"".into()),
                Field::Double(7.0),
                Field::Long(3),
                Field::Bool(false),
                Field::Str("n/a".into()),
            ]
        );
    }

    #[test]
    fn the_extension_chooses_the_format() {
        assert_eq!(Format::of("r.parquet".as_ref()), Format::Parquet);
        assert_eq!(Format::of("r.PARQUET".as_ref()), Format::Parquet);
        assert_eq!(Format::of("r.csv".as_ref()), Format::Csv);
        assert_eq!(Format::of("r".as_ref()), Format::Csv);
    }
}
