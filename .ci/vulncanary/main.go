// Command vulncanary calls golang.org/x/text/language.Parse at v0.3.5, which
// GO-2021-0113 reports: make vulncheck checks that govulncheck finds it.
package main

import (
	"fmt"

	"golang.org/x/text/language"
)

func main() {
	fmt.Println(language.Parse("en"))
}
