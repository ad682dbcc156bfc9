use ndl_runtime::{Datatype, NdlType};

const SHIFT: i32 = 4;

/// Sky cover.
#[derive(Clone, Copy, NdlType)]
#[repr(i32)]
#[ndl(rename_all = "kebab-case")]
enum Sky {
    ClearSky = -1,
    PartlyCloudy,
    #[ndl(rename = "OVC")]
    Overcast = 1 << SHIFT,
}

#[derive(Clone, Copy, NdlType)]
#[repr(C)]
#[ndl(rename_all = "PascalCase")]
struct Obs {
    /// Which station.
    #[ndl(string)]
    station_name: [u8; 8],
    #[ndl(opaque = "application/octet-stream")]
    blob: [u8; 3],
    sky: Sky,
}

fn main() {
    let Datatype::Enum(e) = Sky::datatype() else { panic!() };
    let got: Vec<_> = e.members.iter().map(|m| (m.name.as_str(), m.value)).collect();
    assert_eq!(got, [("clear-sky", -1), ("partly-cloudy", 0), ("OVC", 16)]);
    assert_eq!(Sky::description(), Some("Sky cover."));
    let Datatype::Compound(c) = Obs::datatype() else { panic!() };
    assert_eq!(c.members[0].name, "StationName");
    assert_eq!(c.members[0].description.as_deref(), Some("Which station."));
    assert_eq!(c.members[2].datatype, Sky::datatype());
}
