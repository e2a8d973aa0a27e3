//! The messages of docs/rules/messages.md §R (real messages quoted in public issues 2024–2026), exactly as
//! quoted there, line breaks included (C06, K01 and K07 are broken over lines on purpose).

/// M01: https://github.com/tenstorrent/tt-mlir/issues/8044, 2026-04-21.
pub(crate) const M01: &str = r#"Always | TT_FATAL: Out of Memory: Not enough space to allocate 26542080 B L1 buffer across 48 banks, where each bank needs to store 552960 B, but bank size is 1329888 B (allocated: 417792 B, free: 912096 B, largest free block: 522240 B) (assert.hpp:104)"#;

/// M03: https://github.com/tenstorrent/tt-xla/issues/4685, 2026-05-14.
pub(crate) const M03: &str = r#"{TT_FATAL @ /__w/tt-xla/tt-xla/third_party/tt-mlir/src/tt-mlir/third_party/tt-metal/src/tt-metal/tt_metal/impl/allocator/bank_manager.cpp:462: false
info:
Out of Memory: Not enough space to allocate 3294625792 B DRAM buffer across 12 banks, where each bank needs to store 274686208 B, but bank size is 1071821792 B (allocated: 784847680 B, free: 286974112 B, largest free block: 216504544 B)"#;

/// M05: https://github.com/tenstorrent/tt-xla/issues/5535, 2026-07-06.
pub(crate) const M05: &str = r#"Out of Memory: Not enough space to allocate 1073741824 B DRAM buffer across 12 banks, where each bank needs to store 89479168 B, but bank size is 1070773184 B (allocated: 1003628544 B, free: 67144640 B, largest free block: 67140352 B)"#;

/// M07: https://github.com/tenstorrent/tt-xla/issues/4762, 2026-05-18.
pub(crate) const M07: &str = r#"Out of Memory: Not enough space to allocate 4294967296 B DRAM buffer across 12 banks, where each bank needs to store 357916672 B, but bank size is 1071821792 B (allocated: 527808576 B, free: 544013216 B, largest free block: 306904160 B) (assert.hpp:104)"#;

/// M09: https://github.com/tenstorrent/tt-xla/issues/1957, 2025-11-03.
pub(crate) const M09: &str = r#"Not enough space to allocate 1027604480 B DRAM buffer across 12 banks, where each bank needs to store 85635072 B, but bank size is only 1073741792 B"#;

/// M11: https://github.com/tenstorrent/tt-metal/issues/8490, 2024-05-15.
pub(crate) const M11: &str = r#"TT_THROW @ tt_metal/impl/allocator/allocator.cpp:118: tt::exception
info:
Out of Memory: Not enough space to allocate 98304000 B L1 buffer across 100 banks, where each bank needs to store 983040 B"#;

/// M13: https://github.com/tenstorrent/tt-metal/issues/8501, 2024-05-15.
pub(crate) const M13: &str = r#"TT_THROW @ tt_metal/impl/allocator/allocator.cpp:118: tt::exception
info:
Out of Memory: Not enough space to allocate 41789440 B L1 buffer across 44 banks, where each bank needs to store 949760 B"#;

/// M15: https://github.com/tenstorrent/tt-metal/issues/14840, 2024-11-07.
pub(crate) const M15: &str = r#"TT_THROW @ ../tt_metal/impl/allocator/allocator.cpp:142: tt::exception
info:
Out of Memory: Not enough space to allocate 56623104 B L1 buffer across 56 banks, where each bank needs to store 1011712 B
backtrace:"#;

/// M17: https://github.com/tenstorrent/pytorch2.0_ttnn/issues/846, 2025-03-24.
pub(crate) const M17: &str = r#"TT_THROW @ /home/ubuntu/tt-metal/tt_metal/impl/allocator/bank_manager.cpp:132: tt::exception
info:
Out of Memory: Not enough space to allocate 8257536 B L1 buffer across 64 banks, where each bank needs to store 129024 B
backtrace:
 --- /home/ubuntu/tt-metal/build_Release/lib/libtt_metal.so(+0x205c85) [0x7fadd3c53c85]
 --- tt::tt_metal::BankManager::allocate_buffer(unsigned long, unsigned long, bool, CoreRangeSet const&, std::__1::optional<unsigned int>)
 --- tt::tt_metal::Allocator::allocate_buffer(tt::tt_metal::Buffer*)
 --- tt::tt_metal::Buffer::allocate_impl()"#;

/// M19: https://github.com/tenstorrent/tt-mlir/pull/588, 2024-09-03.
pub(crate) const M19: &str = r#"Always | FATAL    | Out of Memory: Not enough space to allocate 32768 B L1 buffer across 1 banks, where each bank needs to store 32768 B"#;

/// M21: https://github.com/tenstorrent/tt-metal/pull/43402, 2026-04-30.
pub(crate) const M21: &str = r#"Out of Memory: Not enough space to allocate 8192 B L1_SMALL buffer across 64 banks"#;

/// M23: a public source file.
pub(crate) const M23: &str = r#"Out of Memory: Not enough space to allocate 6400 B L1_SMALL buffer across 25 banks, where each bank needs to store 256 B"#;

/// M25: a public source file.
pub(crate) const M25: &str = r#"TT_FATAL: Out of Memory: Not enough space to allocate 1061683200 B DRAM buffer across 8 banks, where each bank needs to store 132710400 B, but bank size is 4273390016 B (allocated: 4221954688 B, free: 51435328 B, largest free block: 45589184 B)"#;

/// D01: tt-metal gtest.
pub(crate) const D01: &str = r#"Out of Memory: Not enough space after considering dependencies to allocate 262144 B L1 across 1 banks (262144 B per bank)"#;

/// C02: https://github.com/tenstorrent/tt-xla/issues/1066, 2025-08-20.
pub(crate) const C02: &str = r#"Statically allocated circular buffers on core range [(x=0,y=0) - (x=12,y=9)] grow to 2101768 B which is beyond max L1 size of 1572864 B
backtrace:
 --- /__w/tt-xla/tt-xla/venv/lib/python3.10/site-packages/jax_plugins/pjrt_plugin_tt/tt-mlir/install/lib/libtt_metal.so(+0x3017bb) [0x7fd1b18137bb]
 --- tt::tt_metal::detail::ProgramImpl::validate_circular_buffer_region(tt::tt_metal::IDevice const*)"#;

/// C04: https://github.com/tenstorrent/tt-mlir/issues/3679, 2025-06-04.
pub(crate) const C04: &str = r#"Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=3)] grow to 2587616 B which is beyond max L1 size of 1499136 B"#;

/// C06: https://github.com/tenstorrent/tt-metal/issues/45331, 2026-05-27.
pub(crate) const C06: &str = r#"TT_THROW @ tt_metal/impl/program/program.cpp:1426: tt::exception
  info:
  Statically allocated circular buffers on core range [0-0 - 7-7] grow to
  5576032 B which is beyond max L1 size of 1499136 B"#;

/// C08: https://github.com/tenstorrent/tt-inference-server/issues/225, 2025-05-05.
pub(crate) const C08: &str = r#"Statically allocated circular buffers on core range [(x=0,y=0) - (x=3,y=0)] grow to 2292704 B which is beyond max L1 size of 1499136 B
backtrace:
 --- /tt-metal/build/lib/libtt_metal.so(+0x21eaab) [0x7f17e5aecaab]"#;

/// C10: a public source file.
pub(crate) const C10: &str = r#"Statically allocated circular buffers on core range [(x=0,y=0) - (x=0,y=0)] grow to 2663200 B which is beyond max L1 size of 1499136 B"#;

/// K01: https://github.com/tenstorrent/tt-metal/issues/54876, 2026-08-30.
pub(crate) const K01: &str = r#"TT_THROW: Statically allocated circular buffers in program 2282 clash with L1 buffers
on core range [0-0 - 10-9]. L1 buffer allocated at 1563072 and static circular buffer
region ends at 1563264"#;

/// K03: https://github.com/tenstorrent/tt-xla/issues/522, 2025-04-20.
pub(crate) const K03: &str = r#"Statically allocated circular buffers in program 453 clash with L1 buffers on core range [(x=0,y=0) - (x=4,y=0)]. L1 buffer allocated at 622592 and static circular buffer region ends at 654368"#;

/// K05: https://github.com/tenstorrent/tt-metal/issues/28835, 2025-09-18.
pub(crate) const K05: &str = r#"Statically allocated circular buffers in program 77 clash with L1 buffers on core range [(x=0,y=0) - (x=7,y=7)]. L1 buffer allocated at 974336 and static circular buffer region ends at 1089536"#;

/// K07: https://github.com/tenstorrent/tt-xla/issues/5206, 2026-06-15.
pub(crate) const K07: &str = r#"TT_THROW: Statically allocated circular buffers in program 350188 clash with L1 buffers
on core range [0-0 - 7-7]. L1 buffer allocated at 104448 and static circular buffer region ends at 107936"#;

/// K09: https://github.com/tenstorrent/tt-metal/issues/8065, 2024-05-02.
pub(crate) const K09: &str = r#"Always | FATAL    | Statically allocated circular buffers in program 4 clash with L1 buffers on core range [(x=0,y=0) - (x=11,y=7)]. L1 buffer allocated at 267584 and static circular buffer region ends at 435136"#;

/// K11: https://github.com/tenstorrent/tt-inference-server/issues/2288, 2026-03-05.
pub(crate) const K11: &str = r#"Statically allocated circular buffers in program 238 clash with L1 buffers on core range [(x=0,y=0) - (x=7,y=7)]. L1 buffer allocated at 1261952 and static circular buffer region ends at 1284960"#;

/// K13: https://github.com/tenstorrent/tt-metal/issues/54621, 2026-08-27.
pub(crate) const K13: &str = r#"Statically allocated circular buffers in program 155 clash with L1 buffers on core range [0-0 - 0-0]. L1 buffer allocated at 1378048 and static circular buffer region ends at 1430656"#;

/// G01: https://github.com/tenstorrent/tt-metal/issues/15510, 2024-11-27.
pub(crate) const G01: &str = r#"Always | FATAL    | Cannot set to globally allocated buffer. Circular buffer size 28672 B exceeds allocated L1 buffer size of 4096 B"#;

/// G03: https://github.com/tenstorrent/tt-metal/issues/19360, 2025.
pub(crate) const G03: &str = r#"TT_ASSERT @ /proj_sw/user_dev/jbauman/src/tt-metal/tt_metal/impl/buffers/circular_buffer_types.cpp:129: false
info:
Cannot set to globally allocated buffer. Circular buffer size 98304 B exceeds allocated L1 buffer bank size of 81920 B
backtrace:"#;
