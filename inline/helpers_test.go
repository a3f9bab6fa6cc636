package inline

const fixtureDir = "../testdata/inline"
