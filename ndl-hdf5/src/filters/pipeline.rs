//! The filters a dataset's pipeline names: the first one the library
//! cannot decode, and the usual names of registered filter ids.

use std::ffi::CStr;
use std::os::raw::{c_char, c_uint};

use hdf5_sys::h5d::H5Dget_create_plist;
use hdf5_sys::h5p::{H5Pclose, H5Pget_filter2, H5Pget_nfilters};
use hdf5_sys::h5z::{H5Z_filter_t, H5Zfilter_avail};

/// The first filter of `found`'s pipeline the library has no decoder
/// for: its id and the name the file gives it.
pub(super) fn missing_filter(found: &hdf5::Dataset) -> Option<(H5Z_filter_t, String)> {
    hdf5::sync::sync(|| {
        // SAFETY: `found` is open; the property list is ours, closed below.
        let dcpl = unsafe { H5Dget_create_plist(found.id()) };
        if dcpl < 0 {
            return None;
        }
        // SAFETY: as above.
        let n = unsafe { H5Pget_nfilters(dcpl) }.max(0) as c_uint;
        let missing = (0..n).find_map(|index| {
            let mut flags: c_uint = 0;
            let mut values: usize = 0;
            let mut config: c_uint = 0;
            let mut name = [0 as c_char; 256];
            // SAFETY: no client values are asked for (`values` is 0); the
            // library writes at most `name.len()` bytes, NUL-terminated.
            let id = unsafe {
                H5Pget_filter2(
                    dcpl,
                    index,
                    &mut flags,
                    &mut values,
                    std::ptr::null_mut(),
                    name.len(),
                    name.as_mut_ptr(),
                    &mut config,
                )
            };
            // SAFETY: a filter id; the library looks for a plugin too.
            if id < 0 || unsafe { H5Zfilter_avail(id) } > 0 {
                return None;
            }
            name[name.len() - 1] = 0;
            // SAFETY: NUL-terminated above.
            let name = unsafe { CStr::from_ptr(name.as_ptr()) };
            Some((id, name.to_string_lossy().into_owned()))
        });
        // SAFETY: the list opened above.
        unsafe { H5Pclose(dcpl) };
        missing
    })
}

/// The usual name of a registered filter id others write (The HDF
/// Group's registry), for filters we have no decoder for.
pub(super) fn known_name(id: H5Z_filter_t) -> Option<&'static str> {
    Some(match id {
        4 => "szip",
        307 => "bzip2",
        32013 => "ZFP",
        32015 => "Zstandard",
        32017 => "SZ",
        32018 => "FCIDECOMP",
        32019 => "JPEG",
        32022 => "LERC",
        32023 => "SZ3",
        32024 => "SPERR",
        _ => return None,
    })
}
