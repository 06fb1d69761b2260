/** Every command of the `gatehouse` CLI (oclif's explicit command strategy). */
import Apply from './apply.js';
import Drift from './drift.js';
import Export from './export.js';
import Plan from './plan.js';
import Render from './render.js';
import Serve from './serve.js';
import Validate from './validate.js';

export const COMMANDS = {
  apply: Apply,
  drift: Drift,
  export: Export,
  plan: Plan,
  render: Render,
  serve: Serve,
  validate: Validate,
};
