//! A group's links by their place in its creation order, read through the
//! index netCDF-C keeps of that order. A walk of a group in that order
//! (`H5Literate`) sorts every link of the group first, on every call:
//! seconds, for each variable of a file of thousands.

use std::ptr;

use hdf5_sys::h5::{H5_index_t, H5_iter_order_t};
use hdf5_sys::h5l::H5Lget_name_by_idx;
use hdf5_sys::h5p::H5P_DEFAULT;

/// The name of link `n` of `group` in the order the links were made;
/// `None` past the last, or where the group keeps no such order.
pub(crate) fn made_nth(group: &hdf5::Group, n: u64) -> Option<String> {
    let here = c".";
    let name_of = |buf: *mut std::os::raw::c_char, size: usize| {
        // SAFETY: `group` is an open group and `here` a NUL-terminated
        // path; HDF5 writes at most `size` bytes to `buf`, and none when
        // it is null (`size` 0), returning the name's length.
        unsafe {
            H5Lget_name_by_idx(
                group.id(),
                here.as_ptr(),
                H5_index_t::H5_INDEX_CRT_ORDER,
                H5_iter_order_t::H5_ITER_INC,
                n,
                buf,
                size,
                H5P_DEFAULT,
            )
        }
    };
    hdf5::sync::sync(|| {
        let len = usize::try_from(name_of(ptr::null_mut(), 0)).ok()?;
        let mut buf = vec![0u8; len + 1];
        let written = name_of(buf.as_mut_ptr().cast(), buf.len());
        if usize::try_from(written).ok()? != len {
            return None;
        }
        buf.truncate(len);
        String::from_utf8(buf).ok()
    })
}

#[cfg(test)]
mod tests {
    use hdf5::plist::group_create::LinkCreationOrder;

    use super::*;

    #[test]
    fn links_come_in_the_order_they_were_made_where_it_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("order.h5");
        let file = hdf5::File::create(&path).unwrap();
        let tracked = file
            .create_group_builder()
            .with_gcpl(|p| p.link_creation_order(LinkCreationOrder::Indexed))
            .create("tracked")
            .unwrap();
        let plain = file.create_group("plain").unwrap();
        for name in ["zeta", "alpha", "mid"] {
            for group in [&tracked, &plain] {
                group.new_dataset::<u8>().create(name).unwrap();
            }
        }
        let made: Vec<String> = (0..).map_while(|n| made_nth(&tracked, n)).collect();
        assert_eq!(made, ["zeta", "alpha", "mid"]);
        assert_eq!(made_nth(&plain, 0), None);
    }
}
