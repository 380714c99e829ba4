/** Why the embedded Neo4j could not be prepared or started; `code` is stable for callers and tests. */
export class EmbeddedNeo4jError extends Error {
  constructor(
    readonly code: 'JAVA_NOT_FOUND' | 'MVN_NOT_FOUND' | 'MAVEN_FAILED' | 'PORT_IN_USE' | 'NOT_READY' | 'EXITED',
    message: string,
  ) {
    super(message);
    this.name = 'EmbeddedNeo4jError';
  }
}
