package dwarfsite

const fixtureDir = "testdata"
