// Package reproduce is the catalogue of the papers this project implements
// and of their figures and tables: for each, whether it can run on this
// machine, the commands that reproduce it at a scale that fits, the
// paper's numbers (transcribed once, each with the line of the paper it
// comes from), how to measure their counterparts in our results, and a
// verdict computed from the data and its spread.
//
// The package is pure: it plans commands and judges results; the CLI's
// `decongestant reproduce` runs the plans.
package reproduce
