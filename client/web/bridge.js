// What the C++ side asks the page (client/src/ui/page.cpp calls window.flockstepUi.<name>):
// defaults that depend on the browser and the URL, and whether a page control has the focus.
import { typingTarget } from './dom.js';

const params = new URLSearchParams(location.search);

export const bridge = {
  /** Multisampling: ?aa=0/1, else off on software GL (SwiftShader, llvmpipe), which pays dearly. */
  antialiasDefault() {
    const v = params.get('aa');
    if (v !== null) return v === '0' ? 0 : 1;
    try {
      // A throwaway canvas: context attributes cannot change once the real context exists.
      const gl = document.createElement('canvas').getContext('webgl2');
      if (!gl) return 1;
      const ext = gl.getExtension('WEBGL_debug_renderer_info');
      const name = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
      const lose = gl.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
      return /SwiftShader|llvmpipe|Software/i.test(name) ? 0 : 1;
    } catch (e) { return 1; }
  },
  /** ?instanced=0/1 forces CPU-expanded / instanced shapes; -1 = the renderer decides. */
  instancedParam() {
    const v = params.get('instanced');
    return v === null ? -1 : Number(v);
  },
  /** WebSocket URL: ?server=, else the page's own host at /ws. */
  serverUrl() {
    const u = params.get('server');
    if (u) return u;
    return (location.protocol === 'https:' ? 'wss://' : 'ws://') + (location.host || 'localhost:8080') + '/ws';
  },
  /** 1 while a page control has the focus: game keys must not steal its keys. */
  typing() { return typingTarget(document.activeElement) ? 1 : 0; },
};
