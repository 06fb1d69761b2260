/** Every command of the `gatehouse` CLI (oclif's explicit command strategy). */
import Apply from './apply.js';
import Drift from './drift.js';
import Plan from './plan.js';
import Serve from './serve.js';
import Validate from './validate.js';

export const COMMANDS = {
  apply: Apply,
  drift: Drift,
  plan: Plan,
  serve: Serve,
  validate: Validate,
};
