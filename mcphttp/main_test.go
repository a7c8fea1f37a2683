package mcphttp_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(runHelperEnv) != "" {
		os.Exit(runHelper()) // the server process of the Run tests
	}
	goleak.VerifyTestMain(m)
}
