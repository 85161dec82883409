/** A connector, action or trigger definition that cannot work. Raised when the definition is made. */
export class DefinitionError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.length === 1 ? problems[0] : `invalid connector definition:\n- ${problems.join('\n- ')}`);
    this.name = 'DefinitionError';
    this.problems = problems;
  }
}
