//! An ordered map from names to entities, as an NDL YAML mapping is.

/// Entities by name, in document order, each name once.
///
/// NDL documents hold a handful of entities per map, so lookups scan the
/// list; what matters is that the order written is the order read.
///
/// ```
/// use ndl_runtime::ndl::NameMap;
///
/// let mut m = NameMap::new();
/// m.insert("b", 1);
/// m.insert("a", 2);
/// assert_eq!(m.insert("b", 3), Some(1)); // replaced in place
/// assert_eq!(m.names().collect::<Vec<_>>(), ["b", "a"]);
/// assert_eq!(m.get("b"), Some(&3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameMap<T> {
    entries: Vec<(String, T)>,
}

impl<T> Default for NameMap<T> {
    fn default() -> Self {
        NameMap {
            entries: Vec::new(),
        }
    }
}

impl<T> NameMap<T> {
    /// An empty map.
    pub fn new() -> Self {
        NameMap::default()
    }

    /// The entity named `name`.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The entity named `name`, mutably.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut T> {
        self.entries
            .iter_mut()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// Every entity and its name, in order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut T)> {
        self.entries.iter_mut().map(|(n, v)| (n.as_str(), v))
    }

    /// Adds `value` under `name` at the end, or replaces the entity of that
    /// name where it stands and returns it.
    pub fn insert(&mut self, name: impl Into<String>, value: T) -> Option<T> {
        let name = name.into();
        match self.get_mut(&name) {
            Some(old) => Some(std::mem::replace(old, value)),
            None => {
                self.entries.push((name, value));
                None
            }
        }
    }

    /// The entity named `name`, added with `make` at the end if missing.
    ///
    /// ```
    /// use ndl_runtime::ndl::NameMap;
    ///
    /// let mut m: NameMap<Vec<u8>> = NameMap::new();
    /// m.get_or_insert_with("x", Vec::new).push(1);
    /// m.get_or_insert_with("x", Vec::new).push(2);
    /// assert_eq!(m.get("x"), Some(&vec![1, 2]));
    /// ```
    pub fn get_or_insert_with(&mut self, name: &str, make: impl FnOnce() -> T) -> &mut T {
        let index = match self.entries.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.entries.push((name.to_owned(), make()));
                self.entries.len() - 1
            }
        };
        &mut self.entries[index].1
    }

    /// Removes the entity named `name` and returns it.
    pub fn remove(&mut self, name: &str) -> Option<T> {
        let index = self.entries.iter().position(|(n, _)| n == name)?;
        Some(self.entries.remove(index).1)
    }

    /// Names and entities in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.entries.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// Names in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(n, _)| n.as_str())
    }

    /// The number of entities.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Later entries replace earlier ones of the same name, as [`NameMap::insert`] does.
impl<N: Into<String>, T> FromIterator<(N, T)> for NameMap<T> {
    fn from_iter<I: IntoIterator<Item = (N, T)>>(iter: I) -> Self {
        let mut m = NameMap::new();
        for (n, v) in iter {
            m.insert(n, v);
        }
        m
    }
}
