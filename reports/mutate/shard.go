package mutate

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Shard is the I-th (1-based) of N disjoint parts of a set of mutants. A
// mutant's part depends only on its code key (see Mutant.Key), never on the
// machine, the order of enumeration or the other mutants, so n jobs that
// each run one shard of the same set measure every mutant of it exactly once.
// The zero Shard is the whole set.
type Shard struct {
	I, N int
}

// ParseShard reads "i/n" with 1 ≤ i ≤ n; the empty string is the whole set.
func ParseShard(s string) (Shard, error) {
	if strings.TrimSpace(s) == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 ≤ i ≤ n, e.g. 3/32", s)
	}
	return Shard{I: i, N: n}, nil
}

// Whole reports whether the shard is the whole set.
func (s Shard) Whole() bool { return s.N <= 1 }

// String is "i/n", or "" for the whole set.
func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Has reports whether the mutant belongs to the shard.
func (s Shard) Has(m Mutant) bool {
	if s.Whole() {
		return true
	}
	return ShardOf(m.Key, s.N) == s.I
}

// ShardOf returns the part (1-based, of n) that the mutant with this code
// key belongs to.
func ShardOf(key string, n int) int {
	h := sha256.Sum256([]byte("shard\x00" + key))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}
