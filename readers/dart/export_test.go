package dart

// SetSplit makes every read of min objects or more a split read whose
// second half starts its search at guess(objects, size) (nil: the
// middle), and reports each join's adopted objects to joined, and whether
// they were adopted in place. It returns a
// function that restores the defaults.
func SetSplit(min uint64, guess func(objects, size int64) int64, joined func(adopted uint64, inPlace bool)) (restore func()) {
	m, g, j := splitMin, splitGuess, splitJoined
	splitMin, splitGuess, splitJoined = min, guess, joined
	return func() { splitMin, splitGuess, splitJoined = m, g, j }
}

// SetSplitTail reports to tail, for every split read whose second half
// was adopted, whether its reading of the tail was too, and whether the
// second half had decoded past the objects' end before it learnt where it
// is. It returns a function that restores the default.
func SetSplitTail(tail func(adopted, late bool)) (restore func()) {
	t := splitTail
	splitTail = tail
	return func() { splitTail = t }
}

// SetSplitInterned reports to interned, for every split read whose second
// half was adopted, how many of the second half's strings the first half
// interned while it waited for it, and how many strings the second half
// had. It returns a function that restores the default.
func SetSplitInterned(interned func(ahead, all int)) (restore func()) {
	i := splitInterned
	splitInterned = interned
	return func() { splitInterned = i }
}

// SetCarefulOnly makes reads decode every object on the careful path
// alone, without the fast loop. It returns a function that restores the
// default.
func SetCarefulOnly() (restore func()) {
	carefulOnly = true
	return func() { carefulOnly = false }
}
