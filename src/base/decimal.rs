//! `f64` as text, byte for byte what `format!("{value}")` and `format!("{value:.6}")` print,
//! without core's `flt2dec` (Grisu with a Dragon4 bignum fallback). The reasons and traces the
//! library returns print thresholds and pressures this way (`idle 400 s >= 300 s on a live
//! session`), so the text must stay `Display`'s. Measured for issue 30: `format!` in place of
//! this module made the wasm 17,507 bytes larger, 6,993 gzipped (262,716 -> 269,709;
//! scripts/build.mjs refuses a module with `flt2dec` in it). zmij or serde_json alone print
//! another text: `1.0`, `60000.0`, `1e+16`, `1e-7` where `Display` prints `1`, `60000`,
//! `10000000000000000`, `0.0000001`.
//!
//! [`shortest`] takes the shortest round-trip digits from `zmij` (serde_json's float printer, so
//! already in the module) and lays them out the way `Display` does: never an exponent. [`fixed6`]
//! rounds the exact binary value to 6 decimals, ties to even, as `{:.6}` does. The tests compare
//! both with `format!` over edge cases and millions of random values.

/// The whole text of NaN and the infinities (`Err`), or the sign the digits follow (`Ok`).
fn sign_or_special(value: f64) -> Result<String, String> {
    if value.is_nan() {
        return Err("NaN".to_string());
    }
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value.is_infinite() {
        return Err(format!("{sign}inf"));
    }
    Ok(sign.to_string())
}

/// `format!("{value}")`: `NaN`, `inf`, `-inf`, `-0`, `0.0000001`, `1000000000000000000000`.
pub fn shortest(value: f64) -> String {
    let mut text = match sign_or_special(value) {
        Ok(sign) => sign,
        Err(special) => return special,
    };
    let mut buffer = zmij::Buffer::new();
    let printed = buffer.format_finite(value.abs());
    // `printed` is `digits[.digits][e[+-]exponent]`: read its significant digits and where the
    // decimal point falls among them, whatever notation zmij chose.
    let (mantissa, exponent) = match printed.split_once('e') {
        // zmij's `e` notation: `+21`, `-7`.
        Some((mantissa, exponent)) => (mantissa, exponent.parse().unwrap_or(0)),
        None => (printed, 0),
    };
    let mut digits = String::with_capacity(mantissa.len());
    let mut point = None;
    for byte in mantissa.bytes() {
        match byte {
            b'.' => point = Some(digits.len()),
            b'0'..=b'9' => digits.push(char::from(byte)),
            _ => {}
        }
    }
    // The decimal point sits after `point` of `digits` (it can be negative or past the end).
    let mut point = point.unwrap_or(digits.len()) as i64 + exponent;
    let significant = digits.trim_start_matches('0');
    point -= (digits.len() - significant.len()) as i64;
    let mut significant = significant.trim_end_matches('0').to_string();
    if significant.is_empty() {
        text.push('0');
        return text;
    }
    // Between two shortest candidates equally near, zmij takes the even one and core the
    // larger one (Dragon4's `2 * mant >= scale`).
    if is_tie_above(value.abs(), &significant, point - significant.len() as i64) {
        round_up(&mut significant, &mut point);
    }
    let significant = significant.as_str();
    if point <= 0 {
        text.push_str("0.");
        push_zeros(&mut text, point.unsigned_abs());
        text.push_str(significant);
    } else if point as usize >= significant.len() {
        text.push_str(significant);
        push_zeros(&mut text, point as u64 - significant.len() as u64);
    } else {
        let (whole, fraction) = significant.split_at(point as usize);
        text.push_str(whole);
        text.push('.');
        text.push_str(fraction);
    }
    text
}

/// `format!("{value:.6}")`: the exact value rounded to 6 decimals, ties to even (`0.000000`,
/// `-0.000000`, `123.456789`, all the digits of `1e300`).
pub fn fixed6(value: f64) -> String {
    const DECIMALS: usize = 6;
    let mut text = match sign_or_special(value) {
        Ok(sign) => sign,
        Err(special) => return special,
    };
    let (mantissa, exponent) = exact(value);
    if exponent >= 0 {
        // An integer (at least 2^52 unless the mantissa is 0): every digit, then the zeros.
        push_integer(&mut text, mantissa, exponent as u32);
        text.push('.');
        push_zeros(&mut text, DECIMALS as u64);
        return text;
    }
    // Split at the binary point: whole part and the fraction's numerator over 2^shift.
    let shift = exponent.unsigned_abs();
    let (mut whole, fraction) = if shift < 64 {
        (mantissa >> shift, mantissa & ((1u64 << shift) - 1))
    } else {
        (0, mantissa)
    };
    // The fraction in millionths, rounded half to even: fraction * 10^6 / 2^shift, where
    // fraction * 10^6 < 2^73 (a u128 multiply and shifts only, no u128 division).
    let scaled = u128::from(fraction) * 1_000_000;
    let mut millionths = if shift > 100 {
        // scaled < 2^73: below half a millionth, rounds to 0.
        0
    } else {
        let quotient = (scaled >> shift) as u64;
        let remainder = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let odd = quotient & 1 == 1;
        if remainder > half || (remainder == half && odd) {
            quotient + 1
        } else {
            quotient
        }
    };
    if millionths == 1_000_000 {
        whole += 1;
        millionths = 0;
    }
    text.push_str(&whole.to_string());
    text.push('.');
    let fraction = millionths.to_string();
    push_zeros(&mut text, (DECIMALS - fraction.len()) as u64);
    text.push_str(&fraction);
    text
}

/// Whether `value` is exactly halfway between `digits * 10^exponent` and the next number of
/// as many digits: `value * 2 == (2 * digits + 1) * 10^exponent`.
fn is_tie_above(value: f64, digits: &str, exponent: i64) -> bool {
    // `digits` has at most 17 digits: `2 * digits + 1` fits in a u64.
    let Ok(digits) = digits.parse::<u64>() else {
        return false;
    };
    let halfway = 2 * digits + 1;
    // value = mantissa * 2^power, mantissa odd.
    let (mut mantissa, power) = exact(value);
    if mantissa == 0 {
        return false;
    }
    let power = i64::from(power) + i64::from(mantissa.trailing_zeros());
    mantissa >>= mantissa.trailing_zeros();
    // mantissa * 2^(power + 1) == halfway * 5^exponent * 2^exponent, both odd parts compared.
    if power + 1 != exponent {
        return false;
    }
    let Ok(five_power) = u32::try_from(exponent.unsigned_abs()) else {
        return false;
    };
    let Some(five) = 5u64.checked_pow(five_power) else {
        return false;
    };
    if exponent >= 0 {
        halfway.checked_mul(five) == Some(mantissa)
    } else {
        mantissa.checked_mul(five) == Some(halfway)
    }
}

/// Adds one to the last of `digits` (carrying; `99` becomes `1` with the point moved right).
fn round_up(digits: &mut String, point: &mut i64) {
    let mut bytes = std::mem::take(digits).into_bytes();
    let mut carry = true;
    for byte in bytes.iter_mut().rev() {
        if *byte == b'9' {
            *byte = b'0';
        } else {
            *byte += 1;
            carry = false;
            break;
        }
    }
    if carry {
        bytes.insert(0, b'1');
        *point += 1;
    }
    while bytes.last() == Some(&b'0') {
        bytes.pop();
    }
    *digits = bytes.into_iter().map(char::from).collect();
}

/// `|value|` as `mantissa * 2^exponent`, exactly.
fn exact(value: f64) -> (u64, i32) {
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction_bits = bits & ((1 << 52) - 1);
    if biased == 0 {
        (fraction_bits, -1074)
    } else {
        (fraction_bits | (1 << 52), biased - 1075)
    }
}

fn push_zeros(text: &mut String, count: u64) {
    text.extend(std::iter::repeat_n('0', count as usize));
}

/// Appends `mantissa * 2^exponent` in decimal (up to 309 digits for an `f64`).
fn push_integer(text: &mut String, mantissa: u64, exponent: u32) {
    // Little-endian limbs in base 10^9.
    const BASE: u64 = 1_000_000_000;
    let mut limbs: Vec<u64> = Vec::with_capacity(36);
    let mut rest = mantissa;
    while rest > 0 {
        limbs.push(rest % BASE);
        rest /= BASE;
    }
    let mut left = exponent;
    while left > 0 {
        // Doubling by up to 2^30 at a time keeps `limb * factor + carry` below 2^64.
        let step = left.min(30);
        left -= step;
        let mut carry = 0u64;
        for limb in &mut limbs {
            let product = (*limb << step) + carry;
            *limb = product % BASE;
            carry = product / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
    }
    match limbs.split_last() {
        None => text.push('0'),
        Some((top, lower)) => {
            text.push_str(&top.to_string());
            for limb in lower.iter().rev() {
                let limb = limb.to_string();
                push_zeros(text, (9 - limb.len()) as u64);
                text.push_str(&limb);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), so failures reproduce.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    fn check(value: f64) {
        assert_eq!(
            shortest(value),
            format!("{value}"),
            "shortest of {:#x}",
            value.to_bits()
        );
        assert_eq!(
            fixed6(value),
            format!("{value:.6}"),
            "fixed6 of {:#x}",
            value.to_bits()
        );
    }

    fn edge_cases() -> Vec<f64> {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.5,
            1.5,
            2.5,
            0.0000005,
            0.0000015,
            0.0000025,
            0.00000049999999999999,
            0.0000005000000000001,
            1e-7,
            -1e-7,
            0.0000294,
            0.000029399999999999997,
            0.003,
            0.7,
            0.70,
            0.9999995,
            0.99999949999,
            999999.9999995,
            1e-5,
            1e-6,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            1e23,
            123_456_789.123_456_79,
            9_007_199_254_740_991.0,
            9_007_199_254_740_993.0,
            4_503_599_627_370_495.5,
            2147483647.0,
            60_000.0,
            1e300,
            -1e300,
            1.7976931348623157e308,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            -5e-324,
            2.225_073_858_507_201e-308,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        // Powers of 2 and 10, and their neighbours.
        for power in -1074..=1023 {
            let value = 2f64.powi(power);
            values.extend([value, value.next_up(), value.next_down()]);
        }
        for power in -330..=310 {
            let value = format!("1e{power}").parse::<f64>().unwrap_or(0.0);
            values.extend([value, value.next_up(), value.next_down()]);
        }
        // Ties at the sixth decimal: k / 2^n with few bits are exact.
        for numerator in 0..4096u32 {
            values.push(f64::from(numerator) / 4096.0);
            values.push(f64::from(numerator) / 2_000_000.0);
            values.push(f64::from(numerator) * 0.000_000_5);
        }
        values
    }

    #[test]
    fn edge_cases_print_as_format_does() {
        for value in edge_cases() {
            check(value);
            check(-value);
        }
    }

    #[test]
    fn random_bit_patterns_print_as_format_does() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            check(f64::from_bits(random.next()));
        }
    }

    #[test]
    fn random_short_decimals_print_as_format_does() {
        // Values a host sends: few significant digits at every scale, and costs near 6 decimals.
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        for _ in 0..200_000 {
            let digits = random.next() % 10_000_000;
            let scale = (random.next() % 40) as i32 - 20;
            check(format!("{digits}e{scale}").parse::<f64>().unwrap_or(0.0));
            let tokens = random.next() % 2_000_000;
            let cost = (random.next() % 100_000) as f64 / 10_000.0;
            check(tokens as f64 / 1000.0 * cost * 0.25);
        }
    }

    #[test]
    fn exact_halves_print_as_format_does() {
        // A 53-bit mantissa times a small power of 2 has an exact 17-22 digit expansion: the
        // shortest digits often sit exactly halfway between two candidates.
        let mut random = Random(0x6a09_e667_f3bc_c909);
        for _ in 0..200_000 {
            let mantissa = (random.next() >> 11) | (1 << 52);
            let power = (random.next() % 41) as i32 - 20;
            check(mantissa as f64 * 2f64.powi(power));
        }
    }
}
