/** Where something was written: a file and a 1-based line and column. */
export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export const formatLocation = (at: SourceLocation) => `${at.file}:${at.line}:${at.col}`;

/** File, line, column order, for sorting; an absent location comes last. */
export const compareLocations = (a: SourceLocation | undefined, b: SourceLocation | undefined): number =>
  !a || !b ? (a ? -1 : b ? 1 : 0) : a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col;
