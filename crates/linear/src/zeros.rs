//! A list of one value per item that holds no bytes while every value is zero: fixed parts
//! of an evaluation (a position's offset, a sum's offset, an endgame part) that many
//! engines' traces never set.

/// One value per item, kept only once some value is not zero (`T::default()`).
#[derive(Clone, Debug, Default)]
pub(super) struct ZeroList<T> {
    len: usize,
    /// Empty while every value is zero, else one per item.
    items: Vec<T>,
}

impl<T: Copy + Default + PartialEq> ZeroList<T> {
    /// Appends `x`: the first value that is not zero takes room for every item.
    pub(super) fn push(&mut self, x: T) {
        match self.items.is_empty() {
            true if x == T::default() => {}
            true => {
                self.items = vec![T::default(); self.len];
                self.items.push(x);
            }
            false => self.items.push(x),
        }
        self.len += 1;
    }

    /// Item `i`'s value.
    #[inline]
    pub(super) fn get(&self, i: usize) -> T {
        self.items.get(i).copied().unwrap_or_default()
    }

    /// Appends every item of `other`.
    pub(super) fn extend(&mut self, other: ZeroList<T>) {
        match (self.items.is_empty(), other.items.is_empty()) {
            (_, true) if !self.items.is_empty() => {
                self.items.resize(self.len + other.len, T::default())
            }
            (_, true) => {}
            (true, false) => {
                self.items = vec![T::default(); self.len];
                self.items.extend(other.items);
            }
            (false, false) => self.items.extend(other.items),
        }
        self.len += other.len;
    }

    /// Appends items `range` of `other`.
    pub(super) fn extend_from(&mut self, other: &ZeroList<T>, range: std::ops::Range<usize>) {
        for i in range {
            self.push(other.get(i));
        }
    }

    /// Gives back the room no item filled.
    pub(super) fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        std::mem::size_of::<T>() * self.items.capacity()
    }

    /// What a form keeps: every value, or none where all are zero.
    pub(super) fn stored(&self) -> &[T] {
        &self.items
    }

    /// The list of `len` items a form kept as `stored` (see [`ZeroList::stored`]), or
    /// `None` where it holds neither none nor `len`.
    pub(super) fn from_stored(stored: Vec<T>, len: usize) -> Option<ZeroList<T>> {
        (stored.is_empty() || stored.len() == len).then_some(ZeroList { len, items: stored })
    }
}

#[cfg(test)]
mod tests {
    use super::ZeroList;

    #[test]
    fn zeros_hold_nothing_until_a_value_is_not_zero() {
        let mut first = ZeroList::default();
        first.push(1.5);
        assert_eq!(first.stored(), [1.5]);
        let mut list = ZeroList::default();
        (0..5).for_each(|_| list.push(0.0));
        assert_eq!((list.len, list.stored().len()), (5, 0));
        assert_eq!(list.get(3), 0.0);
        list.push(2.5);
        list.push(0.0);
        assert_eq!(list.stored(), [0.0, 0.0, 0.0, 0.0, 0.0, 2.5, 0.0]);
        let mut zeros = ZeroList::default();
        zeros.push(0.0);
        let mut joined = zeros.clone();
        joined.extend(list.clone());
        assert_eq!((joined.len, joined.get(6), joined.get(7)), (8, 2.5, 0.0));
        let mut after = list.clone();
        after.extend(zeros);
        assert_eq!((after.len, after.stored().len(), after.get(7)), (8, 8, 0.0));
        let mut part = ZeroList::default();
        part.extend_from(&joined, 0..3);
        assert_eq!((part.len, part.stored().len()), (3, 0));
        assert!(ZeroList::from_stored(vec![1.0], 2).is_none());
        let kept = ZeroList::from_stored(list.stored().to_vec(), 7).expect("one a position");
        assert_eq!((kept.get(5), kept.len), (2.5, 7));
    }
}
