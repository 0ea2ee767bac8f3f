//go:build purego

package slicesx

func makeUncleared[T Number](length, capacity int) []T { return make([]T, length, capacity) }

func fill[T Number](s []T, b byte) {}
