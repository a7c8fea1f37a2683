package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing/fstest"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

func ExampleClient_LoadSkill() {
	// A server with one skill (any server of the skills extension will do).
	srv := mcp.NewServer(mcp.Options{Name: "skills", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	srv.AddSkills(fstest.MapFS{
		"pdf-processing/SKILL.md": {Data: []byte("---\nname: pdf-processing\n" +
			"description: Extract, fill, and assemble PDF documents\n---\n\nUse references/FORMS.md for forms.\n")},
		"pdf-processing/references/FORMS.md": {Data: []byte("Fill the form field by field.\n")},
	})
	h := mcphttp.New(srv, nil)
	defer h.Close()

	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{Extensions: map[string]any{mcp.SkillsExtension: nil}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	// Listing reads no file: the entries are what the model chooses from.
	skills, err := c.ListSkills(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sk := range skills {
		fmt.Printf("%s: %s (%d files)\n", sk.Name, sk.Description, len(sk.Resources))
	}

	// Loading reads SKILL.md and verifies it against the entry; ReadFile
	// verifies each other file. A server that sends other content than it
	// listed gets a *SkillIntegrityError, and the content is not used.
	skill, err := c.LoadSkill(ctx, skills[0])
	var bad *client.SkillIntegrityError
	if errors.As(err, &bad) {
		fmt.Println("not loaded:", bad.Check, "of", bad.File, "differs")
		return
	} else if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("SKILL.md: %d bytes\n", len(skill.Content))
	forms, err := skill.ReadFile(ctx, "references/FORMS.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(forms))
	// Output:
	// pdf-processing: Extract, fill, and assemble PDF documents (2 files)
	// SKILL.md: 120 bytes
	// Fill the form field by field.
}
