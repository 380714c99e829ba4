// Entry point: mounts the console on the page's <main id="app">.
import { render } from 'preact';
import { App } from './app';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
