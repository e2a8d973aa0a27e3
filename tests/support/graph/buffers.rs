//! Buffer and circular-buffer nodes: `buffer`, `buffer_allocate`, `buffer_deallocate`,
//! `circular_buffer_allocate`, `circular_buffer_deallocate_all`, with the params of each era.

use serde_json::Value;

use super::super::schema::{BufferType, Layout};
use super::{Alloc, Graph, Params, Style};

impl Graph {
    fn buffer_params(&self, a: &Alloc, with_address: bool, allocate: bool) -> Params {
        let mut p = vec![
            ("layout", Value::String(a.layout.name().into())),
            ("size", self.num(a.size)),
            ("type", Value::String(a.buffer_type.graph_type().into())),
        ];
        if with_address {
            p.push(("address", self.num(a.address)));
        }
        if self.style != Style::Strings2024 {
            p.push(("device_id", self.num(a.device_id)));
            if allocate {
                p.push(("page_size", self.num(a.page_size)));
                p.push(("num_cores", self.num(a.num_cores)));
            }
        }
        if self.style == Style::Integers {
            p.push(("buffer_type", self.num(a.buffer_type.code() as u64)));
            if allocate {
                p.push(("max_size_per_bank", self.num(a.max_size_per_bank)));
            }
        }
        Self::map(p)
    }

    /// The `buffer` node of a buffer, created on first use.
    fn buffer_node(&mut self, a: &Alloc) -> usize {
        let key = (a.device_id, a.address, a.buffer_type);
        if let Some(c) = self.buffers.get(&key) {
            return *c;
        }
        let params = self.buffer_params(a, false, false);
        let level = self.inner_level();
        let c = self.push(Self::node("buffer", params), Some(level));
        self.connect_to_parent(c);
        self.buffers.insert(key, c);
        c
    }

    /// A `buffer` node (when new) and a `buffer_allocate` connected to it, with [`Alloc`]'s
    /// defaults.
    pub fn buffer_allocate(self, size: u64, address: u64, buffer_type: BufferType, layout: Layout) -> Self {
        self.alloc(Alloc::new(size, address, buffer_type, layout))
    }

    /// `buffer_allocate` with every param given.
    pub fn alloc(mut self, a: Alloc) -> Self {
        // A new allocation at a reused address is a new buffer.
        let key = (a.device_id, a.address, a.buffer_type);
        self.buffers.remove(&key);
        let buffer = self.buffer_node(&a);
        let params = self.buffer_params(&a, true, true);
        let level = self.inner_level();
        let mut node = Self::node("buffer_allocate", params);
        node.connections.push(buffer);
        let c = self.push(node, Some(level));
        self.connect_to_parent(c);
        self
    }

    /// `buffer_deallocate` of a buffer (2024 captures carry no address).
    pub fn buffer_deallocate(self, size: u64, address: u64, buffer_type: BufferType, layout: Layout) -> Self {
        self.dealloc(Alloc::new(size, address, buffer_type, layout))
    }

    pub fn dealloc(mut self, a: Alloc) -> Self {
        let buffer = self.buffer_node(&a);
        let with_address = self.style != Style::Strings2024;
        let params = self.buffer_params(&a, with_address, true);
        let level = self.inner_level();
        let mut node = Self::node("buffer_deallocate", params);
        node.connections.push(buffer);
        let c = self.push(node, Some(level));
        self.connect_to_parent(c);
        self
    }

    /// `circular_buffer_allocate`: `size` per core, `core_range_set` like `{[0-0 - 7-7]}`.
    pub fn cb_allocate(mut self, size: u64, address: u64, core_range_set: &str) -> Self {
        let params = Self::map(vec![
            ("address", self.num(address)),
            ("core_range_set", Value::String(core_range_set.into())),
            ("device_id", self.num(0)),
            ("globally_allocated", Value::String("0".into())),
            ("size", self.num(size)),
        ]);
        let level = self.inner_level();
        let c = self.push(Self::node("circular_buffer_allocate", params), Some(level));
        self.connect_to_parent(c);
        self
    }

    pub fn cb_deallocate_all(mut self) -> Self {
        let params = Self::map(vec![("device_id", self.num(0))]);
        let level = self.inner_level();
        let c = self.push(Self::node("circular_buffer_deallocate_all", params), Some(level));
        self.connect_to_parent(c);
        self
    }
}
