package dwarfsite

const fixtureDir = "../testdata/inline"
