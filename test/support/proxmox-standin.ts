// The stand-in lives in src/demo (the demo serves the same recordings); tests use it from here.
export * from '../../src/demo/proxmox-standin.js';
