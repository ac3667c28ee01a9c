// Every page of the UI, one import per line: a page module registers itself with page().
import "./runs.js";
import "./run.js";
import "./row.js";
import "./compare.js";
import "./import.js";
import "./human-tasks.js";
import "./human-rate.js";
import "./human-report.js";
