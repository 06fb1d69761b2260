/** Every command of the `gatehouse` CLI (oclif's explicit command strategy). */
import Plan from './plan.js';
import Serve from './serve.js';
import Validate from './validate.js';

export const COMMANDS = {
  plan: Plan,
  serve: Serve,
  validate: Validate,
};
