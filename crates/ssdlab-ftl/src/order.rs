//! Static allocation orders: which plane an LPN lives in under static allocation.
//!
//! An order is a permutation of the four parallel units — **C**hannel, **W**ay (the chip's
//! position on its channel), **D**ie and **P**lane — written as four lowercase letters,
//! as in the literature (CWDP, CDWP, … — Hu et al., "Performance impact and interplay of
//! SSD parallelism through advanced commands, allocation strategy and data granularity",
//! ICS 2011). The first letter varies fastest with the LPN: under `cwdp` consecutive LPNs
//! go to consecutive channels, then to the next way, and so on.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ssdlab_nand::{ChipId, Geometry, Lpn, PlaneId};
use std::fmt;
use std::str::FromStr;

use crate::error::FtlConfigError;

/// One parallel unit of the flash array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// The channel (bus).
    Channel,
    /// The chip's position on its channel.
    Way,
    /// The die inside the chip.
    Die,
    /// The plane inside the die.
    Plane,
}

impl Dim {
    fn letter(self) -> char {
        match self {
            Dim::Channel => 'c',
            Dim::Way => 'w',
            Dim::Die => 'd',
            Dim::Plane => 'p',
        }
    }

    fn from_letter(c: char) -> Option<Dim> {
        match c {
            'c' => Some(Dim::Channel),
            'w' => Some(Dim::Way),
            'd' => Some(Dim::Die),
            'p' => Some(Dim::Plane),
            _ => None,
        }
    }

    /// Position in `[channel, way, die, plane]`.
    fn slot(self) -> usize {
        self as usize
    }
}

/// A static allocation order: a permutation of [`Dim`], fastest-varying first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AllocOrder([Dim; 4]);

impl AllocOrder {
    /// Channel first, then way, die, plane: the usual default, spreading consecutive
    /// pages over the buses first.
    pub const CWDP: AllocOrder = AllocOrder([Dim::Channel, Dim::Way, Dim::Die, Dim::Plane]);

    /// The order from fastest- to slowest-varying unit.
    pub fn dims(&self) -> [Dim; 4] {
        self.0
    }

    /// All 24 orders, in lexicographic order of their letters' positions in `cwdp`.
    pub fn all() -> impl Iterator<Item = AllocOrder> {
        const D: [Dim; 4] = [Dim::Channel, Dim::Way, Dim::Die, Dim::Plane];
        (0..256usize).filter_map(|code| {
            let idx = [code & 3, (code >> 2) & 3, (code >> 4) & 3, (code >> 6) & 3];
            let mut seen = [false; 4];
            for &i in &idx {
                if seen[i] {
                    return None;
                }
                seen[i] = true;
            }
            Some(AllocOrder(idx.map(|i| D[i])))
        })
    }

    /// The precomputed form for `geom`, for hot loops.
    pub fn stripe_map(&self, geom: &Geometry) -> StripeMap {
        StripeMap::new(*self, geom)
    }

    /// The plane `lpn` lives in. Builds a [`StripeMap`] on the stack each call; callers
    /// on a hot path keep one from [`AllocOrder::stripe_map`] instead.
    #[inline]
    pub fn plane_of(&self, lpn: Lpn, geom: &Geometry) -> PlaneId {
        StripeMap::new(*self, geom).plane_of(lpn)
    }

    /// The chip `lpn` lives in.
    #[inline]
    pub fn chip_of(&self, lpn: Lpn, geom: &Geometry) -> ChipId {
        StripeMap::new(*self, geom).chip_of(lpn)
    }
}

impl Default for AllocOrder {
    fn default() -> Self {
        AllocOrder::CWDP
    }
}

impl fmt::Display for AllocOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in self.0 {
            write!(f, "{}", d.letter())?;
        }
        Ok(())
    }
}

impl FromStr for AllocOrder {
    type Err = FtlConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || FtlConfigError::StaticOrder {
            value: s.to_owned(),
        };
        let mut dims = [Dim::Channel; 4];
        let mut seen = [false; 4];
        let mut n = 0;
        for c in s.chars() {
            let d = Dim::from_letter(c).ok_or_else(bad)?;
            if n == 4 || seen[d.slot()] {
                return Err(bad());
            }
            seen[d.slot()] = true;
            dims[n] = d;
            n += 1;
        }
        if n != 4 {
            return Err(bad());
        }
        Ok(AllocOrder(dims))
    }
}

impl Serialize for AllocOrder {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AllocOrder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Its TOML form: a string of the four letters in some order (all 24 listed).
impl schemars::JsonSchema for AllocOrder {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AllocOrder".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut orders: Vec<String> = AllocOrder::all().map(|o| o.to_string()).collect();
        orders.sort_unstable();
        schemars::json_schema!({
            "type": "string",
            "enum": orders,
            "description": "Four letters, each once: c (channel), w (way: the chip's position on its channel), d (die), p (plane); the first varies fastest with the LPN."
        })
    }
}

/// An [`AllocOrder`] specialised to one geometry: radices, divisors and plane weights
/// precomputed, so a lookup is four divide/modulo pairs and no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StripeMap {
    order: AllocOrder,
    /// Unit count of the `i`-th dimension of the order.
    radix: [u32; 4],
    /// Product of the radices of the faster dimensions.
    div: [u32; 4],
    /// What one step of the `i`-th dimension adds to the global plane index.
    plane_weight: [u32; 4],
    /// What one step of the `i`-th dimension adds to the global chip index (0 for die, plane).
    chip_weight: [u32; 4],
    /// Unit counts indexed by `Dim::slot`: channels, ways, dies, planes.
    unit_radix: [u32; 4],
}

impl StripeMap {
    /// Precomputes `order` for `geom` (which must be valid).
    pub fn new(order: AllocOrder, geom: &Geometry) -> StripeMap {
        let (c, w, d, p) = (
            geom.channels,
            geom.chips_per_channel,
            geom.dies_per_chip,
            geom.planes_per_die,
        );
        // Global plane = ((way × C + channel) × D + die) × P + plane (see ssdlab-nand).
        let unit = |dim: Dim| match dim {
            Dim::Channel => (c, d * p, 1),
            Dim::Way => (w, c * d * p, c),
            Dim::Die => (d, p, 0),
            Dim::Plane => (p, 1, 0),
        };
        let mut m = StripeMap {
            order,
            radix: [0; 4],
            div: [0; 4],
            plane_weight: [0; 4],
            chip_weight: [0; 4],
            unit_radix: [c, w, d, p],
        };
        let mut div = 1u32;
        for (i, dim) in order.0.into_iter().enumerate() {
            let (radix, pw, cw) = unit(dim);
            m.radix[i] = radix;
            m.div[i] = div;
            m.plane_weight[i] = pw;
            m.chip_weight[i] = cw;
            div = div.saturating_mul(radix);
        }
        m
    }

    /// The order this map was built from.
    pub fn order(&self) -> AllocOrder {
        self.order
    }

    /// The plane `lpn` lives in.
    #[inline]
    pub fn plane_of(&self, lpn: Lpn) -> PlaneId {
        let mut plane = 0;
        for i in 0..4 {
            plane += (lpn.0 / self.div[i]) % self.radix[i] * self.plane_weight[i];
        }
        PlaneId(plane)
    }

    /// The chip `lpn` lives in.
    #[inline]
    pub fn chip_of(&self, lpn: Lpn) -> ChipId {
        let mut chip = 0;
        for i in 0..4 {
            chip += (lpn.0 / self.div[i]) % self.radix[i] * self.chip_weight[i];
        }
        ChipId(chip)
    }

    /// The smallest LPN that lives in `plane`: the inverse of [`StripeMap::plane_of`] over
    /// one stripe cycle (`0..planes`). LPN `first_lpn_of(p) + k × planes` lives in `p` too.
    pub fn first_lpn_of(&self, plane: PlaneId) -> Lpn {
        // Global plane = ((way × C + channel) × D + die) × P + plane (see ssdlab-nand).
        let [c, _, d, p] = self.unit_radix;
        let mut coord = [0u32; 4]; // indexed by Dim::slot
        coord[Dim::Plane.slot()] = plane.0 % p;
        coord[Dim::Die.slot()] = plane.0 / p % d;
        coord[Dim::Channel.slot()] = plane.0 / (p * d) % c;
        coord[Dim::Way.slot()] = plane.0 / (p * d * c);
        let mut lpn = 0;
        for (i, dim) in self.order.0.into_iter().enumerate() {
            lpn += coord[dim.slot()] * self.div[i];
        }
        Lpn(lpn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::tiny;
    use ssdlab_nand::ChannelId;

    #[test]
    fn cwdp_goes_channel_then_way_then_plane() {
        let g = tiny(); // 2 channels, 2 ways, 1 die, 2 planes
        let o: AllocOrder = "cwdp".parse().unwrap();
        let m = o.stripe_map(&g);
        let chips: Vec<_> = (0..8).map(|l| m.chip_of(Lpn(l)).0).collect();
        assert_eq!(chips, [0, 1, 2, 3, 0, 1, 2, 3]);
        let chans: Vec<_> = (0..4)
            .map(|l| g.channel_of_chip(m.chip_of(Lpn(l))))
            .collect();
        assert_eq!(
            chans,
            [ChannelId(0), ChannelId(1), ChannelId(0), ChannelId(1)]
        );
        let planes: Vec<_> = (0..8).map(|l| o.plane_of(Lpn(l), &g).0).collect();
        assert_eq!(planes, [0, 2, 4, 6, 1, 3, 5, 7]);
        assert_eq!(o.chip_of(Lpn(9), &g), ChipId(1));
    }

    #[test]
    fn pdcw_varies_plane_fastest() {
        let g = tiny();
        let o: AllocOrder = "pdcw".parse().unwrap();
        let planes: Vec<_> = (0..8).map(|l| o.plane_of(Lpn(l), &g).0).collect();
        // plane, (die has radix 1), channel, way: chip 0 p0 p1, chip 1 p0 p1, chip 2 …
        assert_eq!(planes, [0, 1, 2, 3, 4, 5, 6, 7]);
        let w: AllocOrder = "wcdp".parse().unwrap();
        let chips: Vec<_> = (0..4).map(|l| w.chip_of(Lpn(l), &g).0).collect();
        assert_eq!(
            chips,
            [0, 2, 1, 3],
            "way fastest: chip 0, 2 on channel 0, then channel 1"
        );
    }

    #[test]
    fn all_24_orders_are_bijections_over_one_cycle() {
        let g = ssdlab_nand::Geometry {
            channels: 3,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 2,
            ..tiny()
        };
        let orders: Vec<_> = AllocOrder::all().collect();
        assert_eq!(orders.len(), 24);
        for o in orders {
            let text = o.to_string();
            assert_eq!(text.parse::<AllocOrder>().unwrap(), o, "{text}");
            let m = o.stripe_map(&g);
            let mut seen = vec![false; g.planes() as usize];
            for l in 0..g.planes() {
                let p = m.plane_of(Lpn(l));
                assert!(!seen[p.idx()], "{text}: plane {p} twice");
                seen[p.idx()] = true;
                assert_eq!(m.first_lpn_of(p), Lpn(l), "{text}: inverse of plane {p}");
                assert_eq!(
                    g.chip_of_die(g.die_of_plane(p)),
                    m.chip_of(Lpn(l)),
                    "{text}"
                );
                assert_eq!(m.plane_of(Lpn(l + 5 * g.planes())), p, "{text}: periodic");
            }
        }
    }

    #[test]
    fn bad_strings_are_rejected_naming_the_key() {
        for bad in ["", "cwd", "cwdpp", "cwdd", "CWDP", "cwdx", "cw dp"] {
            let e = bad.parse::<AllocOrder>().unwrap_err();
            assert_eq!(e.key(), "ftl.static_order");
            assert!(e.to_string().contains("ftl.static_order"), "{e}");
            assert!(e.to_string().contains(&format!("{bad:?}")), "{e}");
        }
    }

    #[test]
    fn serde_uses_the_letters() {
        use serde::de::value::{Error, StrDeserializer};
        use serde::de::IntoDeserializer;
        let d: StrDeserializer<'_, Error> = "dpwc".into_deserializer();
        let o = AllocOrder::deserialize(d).unwrap();
        assert_eq!(o.dims(), [Dim::Die, Dim::Plane, Dim::Way, Dim::Channel]);
        let d: StrDeserializer<'_, Error> = "dpw".into_deserializer();
        assert!(AllocOrder::deserialize(d)
            .unwrap_err()
            .to_string()
            .contains("dpw"));
    }

    /// The schema lists exactly the strings the parser accepts among all four-letter
    /// words over `c`, `w`, `d`, `p`.
    #[test]
    fn the_schema_lists_every_order_the_parser_takes() {
        let schema = schemars::schema_for!(AllocOrder);
        let mut listed: Vec<&str> = schema
            .get("enum")
            .and_then(|v| v.as_array())
            .expect("enum")
            .iter()
            .map(|v| v.as_str().expect("a string"))
            .collect();
        let mut parsed = Vec::new();
        for n in 0..256u32 {
            let word: String = (0..4)
                .map(|i| ['c', 'w', 'd', 'p'][(n >> (2 * (3 - i)) & 3) as usize])
                .collect();
            if word.parse::<AllocOrder>().is_ok() {
                parsed.push(word);
            }
        }
        listed.sort_unstable();
        parsed.sort_unstable();
        assert_eq!(listed, parsed);
        assert_eq!(listed.len(), 24);
    }
}
