package argschema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTidyBound: a bound's rational and padded numbers read as decimals;
// a message that is not one is left as is.
func TestTidyBound(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"minimum: 0/1 is less than 1.000000":                            "minimum: 0 is less than 1",
		"maximum: 51/1 is greater than 50.000000":                       "maximum: 51 is greater than 50",
		"exclusiveMinimum: -1/4 is less than or equal to 0.000000":      "exclusiveMinimum: -0.25 is less than or equal to 0",
		"exclusiveMaximum: 3/2 is greater than or equal to 1.250000":    "exclusiveMaximum: 1.5 is greater than or equal to 1.25",
		"minLength: \"g\" contains 1 Unicode code points, fewer than 2": "minLength: \"g\" contains 1 Unicode code points, fewer than 2",
		"minimum: odd":                       "minimum: odd",
		"minimum: 1/0 is less than 1.000000": "minimum: 1/0 is less than 1.000000",
	} {
		assert.Equal(t, want, tidyBound(in), in)
	}
}
