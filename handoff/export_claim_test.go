package handoff

// BatonLockName is batonLockName, for the tests of package handoff_test.
var BatonLockName = batonLockName
