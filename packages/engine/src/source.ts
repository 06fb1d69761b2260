/** Where something was written: a file and a 1-based line and column. */
export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export const formatLocation = (at: SourceLocation) => `${at.file}:${at.line}:${at.col}`;
