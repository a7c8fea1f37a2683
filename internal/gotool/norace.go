//go:build !race

package gotool

const race = false
