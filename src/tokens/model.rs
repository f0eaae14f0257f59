//! The fitted constants of the heuristic estimator ([`super::Estimator`]), written by
//! `node bench/calibrate.mjs --write` (see there how they are fitted); do not edit by hand.
//! Fitted on 2290 pieces of the real sessions and 1050 generated texts (seed 1).

/// Tokens per feature, in the order of [`super::estimator`]'s features.
#[rustfmt::skip]
pub const COEFFICIENTS: [f64; 18] = [
    0.7920, // word_pieces
    0.9620, // space_word_pieces
    1.0311, // other_word_pieces
    0.0796, // short_words
    1.1424, // escapes
    0.0891, // cut_units
    0.5450, // han_chars
    0.5083, // kana_chars
    0.1472, // hangul_chars
    1.0772, // digit_groups
    1.0310, // punct_pieces
    0.5036, // punct_chars_over_2
    0.1681, // repeat_chars
    0.4753, // symbol_chars
    1.3608, // emoji_chars
    1.3188, // modifier_chars
    0.8554, // space_pieces
    1.0520, // newline_pieces
];

/// The share of a letter pair o200k cuts between, in 1/15 (`b'a'` + 0..=15), by
/// lead (none, space, other), first letter (a-z, then any other) and second letter.
#[rustfmt::skip]
pub const PAIRS: &[u8; 2187] = b"\
eaaafcadedbaaahbhaaafadbbcbcdeebhegdfhbgechlcdebjgfbjbcecdbfgaejbaffbdjbcbefkgegb\
cbgcbeifcfhdfgbfkddechgedfbedbbeddghjeabafddabbecfadfbceefcbfibkgbfebflbccfiedelb\
fdgjbjgddhmbiecfnbbeehgidlbchjfajhhdjheiicfjcebefgfedbcbabbabgecbaaabbfbaakbgbhbb\
dhihbjjifghfiecikkcidkjkiobefkibkdeekgegdekofcffgdmeobcgfcbdgjbiibghbgoicbbfljcmb\
bcgdbhdgehgdcebbeebffgffcjbbfebbebdggeffgciohbbcgjfigbfacbibbefebbbacblabbbbbbeib\
bgefbgebcjfacdbdkabbchgdgmbhifjjoklhoobiihjedfebkkllobcgdcafchblddedbfhccbddkfblb\
dhbgaghbdhcddhcbgdbaefejdfbcjffaekabkffghbdobccdfgdbhbebdbbddbchbbaakalaabiddcecb\
bffgbkhjelgedidfmdfhghiihjbchldbiibckjhhfcfobdehiddeobhjiffhomfooggjjdolgbklodfkb\
flfgemimjmjefdedogdehnjjghbellgckjeflklgeemoikifmdhfebbbbbbbbbbbbbbbbbbbbbbbbbbbb\
baaabaacbaaaaacabaaaaaaaaabbfekabcbaabajfacbbahbbbbabbaaaaajbabbaafbadbabaabaoabb\
aaiabbbgaadacaaabeaaaabbabbbbaaaaaaafcaaaabaaaaaaaaacbbbbbaabbabbaaaahbaaaabbbbbb\
bajbandabbbaaaadbaaeaabbfbbabbbabbbabbdeaabbaaabbbbdbbaaaaaaahaaaaaaaacaaabaiabab\
bbbbabbbjbbbbbbbbbabbbbbibbbhngadcmcmmgkbgoblbocmdbgmbafkaaagibmgaababbbaaaacfakb\
aajeakckamjbbbaablahajkabkbalaaaaagceaabaacbiaaaajbabbaaaaaaaaaaaaaaaajaaaaaaaabb\
aabaaaaadbjaagaabaaaabbabbbabbbbbbbbbbabbbbbbbbabjbbbbajaaababalaaaaadbaaaaacbakb\
bmciacfbamadccbahaaablbbagbanceaddaamabdhaabaaaajbbalbaabaaaakaidaaababaaabfdcbeb\
bbbbabbbabbbabcbbamdcbbbgbbabbaabbaabnbbabbbccblbbbfbbamciajleamniimbablmabmlaalb\
aimbalkkjigacaaabfabbpdmbbbbbbbabbbebbkbbjbbbnbhbbbdabbbbbbbbbbbbbbbbbbbbbbbbbbbb\
gaaakaacdcaaaahadaaafaebaebdjhicjcfgbhahdbnkdfebklfajbcgfeajgadkaajgaeiaaaahiieeb\
daiabidgenhbdibeiiccaigadgbeabaccahileaaagebaabcbaaafbdjfhcaeiaigbgjcgiabachecdjb\
gbjmahbaghmaeaaimaaadegfdhbbgheajhicghckdddhcdaehfhgibcaaaaaafacaaaaaahaaacahaeab\
cihfbhjiifighfbcmjaigkhkjlbbekkbmdeckighegmjfikhhfjflbfjjaaaciagianhbckgaaacjgalb\
bdmdajejfkicecabfjaihlhhblbckdaaaaekhcbgfaelkaagdjelkbbaaagaaeebaaaaaahaabacadedb\
biefafeiejdacdaajbaabiidblbfjfhhlligmmahhegcdjdalkhjlbdjbaaiahbmacccajfabaeboeahb\
ekcgadfabibdbidagaaacagndhbblcdadmabkmjbfdamaabbgibajbaabaaaaeagaaaahaiaaagddbdgb\
agefaiafbkggbhffjehhghidiibcfhbbhgaaimhhdadldbchiffgmbciggdhmlfllgbiiblohajllbckb\
bhdccmikklgbcbaamfabgofkbdbdhgfaigddifhddfklgkgglegdcbbbbbbbbbbbbbbbbbbbbbbbbbbbb\
";

/// Added to a pair's share, by lead, first pair of the word or not, and case (lower-lower,
/// upper-upper, upper-lower).
#[rustfmt::skip]
pub const OFFSETS: [i8; 18] = [-1, 0, 1, -1, 3, 6, 0, 0, 0, 0, 0, 1, 1, 2, 4, 0, 2, 6];
