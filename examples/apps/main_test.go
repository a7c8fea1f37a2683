package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestDice: a host (the extension declared) sees both tools and reads the
// embedded view; a client without it sees only roll, whose text says the
// roll; the structured result holds the dice the view draws.
func TestDice(t *testing.T) {
	host := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{Extensions: map[string]any{apps.Extension: map[string]any{"mimeTypes": []string{apps.MIMEType}}}}})
	var names []string
	for _, tl := range host.ListTools() {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"roll", "reroll"}, names)
	view := host.ReadResource(viewURI).Contents
	require.Len(t, view, 1)
	assert.Equal(t, apps.MIMEType, view[0].MIMEType)
	assert.True(t, strings.HasPrefix(view[0].Text, "<!DOCTYPE html>"))
	assert.Contains(t, view[0].Text, `"ui/initialize"`)

	res := mcptest.CallToolAs[rollResult](host, "reroll", map[string]int{"count": 3, "sides": 4})
	require.Len(t, res.Dice, 3)
	total := 0
	for _, d := range res.Dice {
		assert.True(t, d >= 1 && d <= 4, "die %d", d)
		total += d
	}
	assert.Equal(t, total, res.Total)

	plain := mcptest.NewSession(t, newServer(), nil)
	names = nil
	for _, tl := range plain.ListTools() {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"roll"}, names, "reroll is the view's")
	assert.Regexp(t, `^Rolled \d, \d on 2d6: \d+$`, plain.CallTool("roll", struct{}{}, nil).Text())
}
