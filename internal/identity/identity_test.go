package identity

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type user struct{ id string }

func (u *user) Subject() string { return u.id }

// hidden has no subject and nothing JSON would show.
type hidden struct {
	token string
	Role  string `json:"-"`
}

func TestSame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"anonymous pair", nil, nil, true},
		{"anonymous and subject", nil, &user{"ada"}, false},
		{"subject and anonymous", &user{"ada"}, nil, false},
		{"same subject, other values", &user{"ada"}, &user{"ada"}, true},
		{"other subjects", &user{"ada"}, &user{"bob"}, false},
		{"empty subject is opaque, equal values", &user{""}, &user{""}, true},
		{"empty subject never equals a subject", &user{""}, &user{"ada"}, false},
		{"opaque equal", hidden{token: "t1"}, hidden{token: "t1"}, true},
		{"opaque differing only in unexported fields", hidden{token: "t1"}, hidden{token: "t2"}, false},
		{"opaque differing only in json:\"-\" fields", hidden{Role: "admin"}, hidden{Role: "user"}, false},
		{"opaque strings", "alice", "alice", true},
		{"opaque and subject with the same text", "ada", &user{"ada"}, false},
		{"nil pointers with a Subject method", (*user)(nil), (*user)(nil), true},
		{"nil pointer and a subject", (*user)(nil), &user{"ada"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Same(tt.a, tt.b))
			assert.Equal(t, tt.want, Same(tt.b, tt.a), "Same is symmetric")
		})
	}
}

func TestKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		auth any
		key  string
		ok   bool
		kind Kind
	}{
		{"anonymous", nil, "", false, Anonymous},
		{"subject", &user{"ada"}, "sub:ada", true, Subject},
		{"empty subject", &user{""}, "", false, Opaque},
		{"opaque struct", hidden{token: "x"}, "", false, Opaque},
		{"nil pointer with a Subject method", (*user)(nil), "", false, Opaque},
		{"opaque string", "alice", "", false, Opaque},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key, ok := Key(tt.auth)
			assert.Equal(t, tt.key, key)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.kind, Of(tt.auth))
		})
	}
}
