// sink.rs: Rust inline sites for the encode and DWARF reader fixtures.
// A #![no_std] static library with #[inline] functions that rustc inlines
// into the exported rust_mix: write<u8> and write<u32> take self of the
// unit type (), which DWARF spells as a base type "()" of size 0, the type
// that once stopped the encoding of a whole kernel.
#![no_std]

use core::panic::PanicInfo;

#[panic_handler]
fn panic(_: &PanicInfo) -> ! {
    loop {}
}

pub trait Sink {
    fn write<T: Copy + Into<u64>>(self, v: T, acc: &mut u64);
}

impl Sink for () {
    #[inline]
    fn write<T: Copy + Into<u64>>(self, v: T, acc: &mut u64) {
        *acc = acc.wrapping_mul(31).wrapping_add(v.into());
    }
}

#[inline]
fn scale(x: u32, k: u32) -> u32 {
    x.wrapping_mul(k) ^ (x >> 3)
}

#[no_mangle]
pub extern "C" fn rust_mix(a: u32, b: u8, acc: &mut u64) -> u32 {
    ().write(b, acc);
    ().write(a, acc);
    scale(a, 7).wrapping_add(scale(b as u32, 3))
}
