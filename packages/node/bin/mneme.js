#!/usr/bin/env node
// The installed `mneme` command: the built command line (kept in the repository so a workspace install links it
// before the first build).
import "../dist/bin.js"
