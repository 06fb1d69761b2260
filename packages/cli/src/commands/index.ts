/** Every command of the `gatehouse` CLI (oclif's explicit command strategy). */
import Serve from './serve.js';

export const COMMANDS = {
  serve: Serve,
};
