/**
 * Colour is the caller's business: renderers take a `Style` and the CLI passes picocolors
 * (enabled on a terminal, disabled with NO_COLOR or when piped). The engine stays free of
 * terminal concerns, and golden tests use `plainStyle`.
 */
export type Paint = (text: string) => string;

export interface Style {
  create: Paint;
  update: Paint;
  delete: Paint;
  replace: Paint;
  bold: Paint;
  dim: Paint;
}

const same: Paint = (text) => text;

export const plainStyle: Style = { create: same, update: same, delete: same, replace: same, bold: same, dim: same };
