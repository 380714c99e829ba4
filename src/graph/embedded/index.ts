export { EmbeddedNeo4jError } from './errors.js';
export { resolveClasspath } from './classpath.js';
export { startEmbeddedNeo4j, type EmbeddedNeo4j, type EmbeddedNeo4jOptions } from './launcher.js';
export { freePort, portAnswers } from './ports.js';
