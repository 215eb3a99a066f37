package fe

import (
	"io"
	"math"
	"strconv"
	"strings"
)

// source is the reader's character stream. Like the C readfp callback it
// yields 0 at end of input; a NUL byte in the input also reads as 0.
type source struct {
	r io.ByteReader
}

func (s *source) next() byte {
	b, err := s.r.ReadByte()
	if err != nil {
		return 0
	}
	return b
}

// isSpace and isDelim are C's strchr(" \n\t\r", c) and strchr(" \n\t\r();",
// c) for a c that is not NUL.
func isSpace(c byte) bool { return strings.IndexByte(" \n\t\r", c) >= 0 }

func isDelim(c byte) bool { return strings.IndexByte(" \n\t\r();", c) >= 0 }

// read is fe_read: one datum, refNone at end of input, error on a stray ')'.
// depth is how many lists and quotes enclose it.
func (vm *VM) read(src *source, depth int) Value {
	v := vm.readItem(src, depth)
	if v == refRParen {
		vm.fail("stray ')'")
	}
	return v
}

// readItem is read_: it may also return refRParen.
func (vm *VM) readItem(src *source, depth int) Value {
	if depth >= maxReadDepth {
		vm.fail("nesting too deep")
	}
	chr := vm.nextchr
	if chr == 0 {
		chr = src.next()
	}
	vm.nextchr = 0
	for {
		for chr != 0 && isSpace(chr) {
			chr = src.next()
		}
		if chr != ';' {
			break
		}
		for chr != 0 && chr != '\n' {
			chr = src.next()
		}
		chr = src.next()
	}

	switch chr {
	case 0:
		return refNone

	case ')':
		return refRParen

	case '(':
		res := Nil
		tail := refNone // refNone: the next element goes into res
		setTail := func(v Value) {
			if tail == refNone {
				res = v
			} else {
				vm.cells[tail.index()].cdr = v
			}
		}
		gc := vm.gcIdx
		vm.pushgc(res) // makes too-deep nesting overflow the gc stack
		for {
			v := vm.readItem(src, depth+1)
			if v == refRParen {
				break
			}
			if v == refNone {
				vm.fail("unclosed list")
			}
			if vm.typ(v) == TSymbol && vm.symbolName(v) == "." {
				d := vm.read(src, depth+1)
				if d == refNone {
					// C stores a NULL pointer here when a NUL byte
					// follows the dot and later crashes on it; report
					// the list as unclosed instead.
					vm.fail("unclosed list")
				}
				setTail(d)
			} else {
				c := vm.cons(v, Nil)
				setTail(c)
				tail = c
			}
			vm.gcIdx = gc
			vm.pushgc(res)
		}
		return res

	case '\'':
		v := vm.read(src, depth+1)
		if v == refNone {
			vm.fail("stray '''")
		}
		inner := vm.cons(v, Nil)
		return vm.cons(vm.symbol("quote"), inner)

	case '"':
		res := vm.buildString(refNone, 0)
		v := res
		chr = src.next()
		for chr != '"' {
			if chr == 0 {
				vm.fail("unclosed string")
			}
			if chr == '\\' {
				chr = src.next()
				switch chr {
				case 'n':
					chr = '\n'
				case 'r':
					chr = '\r'
				case 't':
					chr = '\t'
				}
			}
			if chr != 0 {
				v = vm.buildString(v, chr)
			}
			chr = src.next()
		}
		return res

	default:
		var buf [64]byte
		n := 0
		for {
			if n == len(buf)-1 {
				vm.fail("symbol too long")
			}
			buf[n] = chr
			n++
			chr = src.next()
			if chr == 0 || isDelim(chr) {
				break
			}
		}
		vm.nextchr = chr
		tok := string(buf[:n])
		if f, ok := parseNumber(tok); ok {
			return vm.number(f)
		}
		if tok == "nil" {
			return Nil
		}
		return vm.symbol(tok)
	}
}

// parseNumber reports whether C strtod would consume the whole token, and
// the value it gives rounded to float32.
func parseNumber(tok string) (float32, bool) {
	i := 0
	neg := false
	if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
		neg = tok[i] == '-'
		i++
	}
	rest := tok[i:]
	lower := strings.ToLower(rest)
	switch {
	case lower == "inf" || lower == "infinity":
		return float32(math.Inf(sign(neg))), true
	case lower == "nan":
		bits := uint32(0x7fc00000)
		if neg {
			bits |= 0x80000000
		}
		return math.Float32frombits(bits), true
	}
	if strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "0X") {
		if f, ok := parseHex(rest[2:]); ok {
			if neg {
				f = -f
			}
			return float32(f), true
		}
		// strtod takes just the "0": the token is not wholly numeric.
		return 0, false
	}
	if !isDecimal(rest) {
		return 0, false
	}
	d, err := strconv.ParseFloat(rest, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	if neg {
		d = -d
	}
	return float32(d), true
}

func sign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// isDecimal reports whether s has the shape digits [. digits] [e|E [sign]
// digits] and nothing else. ParseFloat, which reads s next, refuses the
// shapes strtod would not take whole: no mantissa digit, or an exponent
// marker with no digit after it.
func isDecimal(s string) bool {
	i := skipDigits(s, 0)
	if i < len(s) && s[i] == '.' {
		i = skipDigits(s, i+1)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		i = skipDigits(s, i)
	}
	return i == len(s)
}

// skipDigits returns the index of the first byte from i on that is not a
// decimal digit.
func skipDigits(s string, i int) int {
	for i < len(s) && strings.IndexByte("0123456789", s[i]) >= 0 {
		i++
	}
	return i
}

// isHex reports whether c is a hex digit (parseHex hands the digits
// themselves to strconv).
func isHex(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }

// parseHex parses the part after "0x" of a C hex float: hex digits with an
// optional point and an optional binary exponent. It rounds correctly to
// float64 by handing a normalised literal to strconv.
func parseHex(s string) (float64, bool) {
	i, digits := 0, 0
	for i < len(s) && isHex(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isHex(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	mant := s[:i]
	exp := "p0"
	if i < len(s) && (s[i] == 'p' || s[i] == 'P') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j {
			return 0, false
		}
		exp = "p" + s[i+1:k]
		i = k
	}
	if i != len(s) {
		return 0, false
	}
	// strconv takes a hex mantissa with nothing before or after its point
	// (0x.8p0, 0x1.p0) as C's strtod does.
	d, err := strconv.ParseFloat("0x"+mant+exp, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return d, true
}
