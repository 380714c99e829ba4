export * from './driver.js';
export * from './edge-record.js';
export * from './edges.js';
export * from './migrations.js';
export * from './resource-record.js';
export * from './resources.js';
export * from './traversal.js';
export * from './values.js';
