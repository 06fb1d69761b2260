/**
 * The published packages of the monorepo, in dependency order (a package comes after every
 * package it depends on), with their folders. Shared by the version script and the tests that
 * pack and lint them, so that adding a package is one line here.
 */
export const PUBLISHED_PACKAGES = [
  { name: '@gatehouse/schemas', dir: 'schemas' },
  { name: '@gatehouse/client', dir: 'packages/client' },
  { name: '@gatehouse/engine', dir: 'packages/engine' },
  { name: '@gatehouse/server', dir: 'packages/server' },
  { name: '@gatehouse/cli', dir: 'packages/cli' },
];

/** Where the sources live: the `repository` field of every package and the Action's home. */
export const REPOSITORY = { owner: 'gatehouse', name: 'gatehouse' };
export const REPOSITORY_URL = `https://github.com/${REPOSITORY.owner}/${REPOSITORY.name}`;
