// A module that calls a function with a known vulnerability report (GO-2021-0113,
// golang.org/x/text/language.Parse before v0.3.7): make vulncheck scans it first and fails
// unless govulncheck finds that report, so a database it cannot read fails the check instead
// of passing it. Not part of the workspace; nothing imports it.
module vulncanary

go 1.26.0

require golang.org/x/text v0.3.5
