package handoff

// ResetOf is resetOf, for the tests of package handoff_test.
var ResetOf = resetOf
