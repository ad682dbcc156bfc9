//! The order of an array's elements in storage, as every format says it:
//! NumPy's `fortran_order`, Zarr's `order` and `transpose`, NDL's `order`
//! directive.

/// The order in which an array's elements follow each other in storage.
///
/// ```
/// use ndl_runtime::Order;
/// assert_eq!(Order::Fortran.name(), "F");
/// assert_eq!(Order::from_name("C"), Some(Order::C));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Row-major: the last index varies fastest (NumPy's default, `C`).
    #[default]
    C,
    /// Column-major: the first index varies fastest (`F`, NumPy's
    /// `fortran_order`).
    Fortran,
}

impl Order {
    /// The word NumPy, Zarr and NDL write: `C` or `F`.
    pub fn name(self) -> &'static str {
        match self {
            Order::C => "C",
            Order::Fortran => "F",
        }
    }

    /// The order a word names.
    pub fn from_name(name: &str) -> Option<Order> {
        match name {
            "C" => Some(Order::C),
            "F" => Some(Order::Fortran),
            _ => None,
        }
    }

    /// The order NumPy's `fortran_order` flag says.
    pub fn from_fortran(fortran_order: bool) -> Order {
        if fortran_order {
            Order::Fortran
        } else {
            Order::C
        }
    }

    /// Whether it is Fortran order, NumPy's `fortran_order` flag.
    pub fn is_fortran(self) -> bool {
        self == Order::Fortran
    }
}
