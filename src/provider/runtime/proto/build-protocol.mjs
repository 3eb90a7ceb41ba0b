// Second half of `npm run build`: copies the protocol definitions next to the compiled runtime and
// writes protocol.json, their protobufjs descriptor, which the runtime loads instead of parsing
// .proto text, and services.json, the services' methods, which is all it reads before its handshake
// (src/provider/runtime/proto/README.md).
//
//     node build-protocol.mjs TARGET_DIR
//
// TARGET_DIR is the `proto` directory beside the compiled runtime (protocol.ts reads
// `./proto/services.json` relative to itself); the sources are this file's own directory.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import protobuf from "protobufjs";

const [targetArgument] = process.argv.slice(2);
if (targetArgument === undefined || targetArgument === "") {
  process.stderr.write("build-protocol.mjs: received no target directory: expected `node build-protocol.mjs TARGET_DIR`, the proto directory beside the compiled runtime\n");
  process.exit(2);
}
const join = (...parts) => resolve(...parts);
const source = import.meta.dirname;
const target = resolve(targetArgument);
const files = readdirSync(source).filter((name) => name.endsWith(".proto") || name === "README.md").sort();

mkdirSync(target, { recursive: true });
for (const name of files) copyFileSync(join(source, name), join(target, name));

const protocol = new protobuf.Root().loadSync(
  files.filter((name) => name.endsWith(".proto")).map((name) => join(source, name)),
  { keepCase: true },
);
protocol.resolveAll();
writeFileSync(join(target, "protocol.json"), JSON.stringify(protocol.toJSON()));

// Each service's methods alone, enough to register them before the descriptor is loaded
const services = {};
const collect = (namespace) => {
  for (const nested of namespace.nestedArray) {
    if (nested instanceof protobuf.Service) {
      services[nested.fullName.slice(1)] = Object.fromEntries(
        nested.methodsArray.map((method) => [
          method.name,
          { requestType: method.resolvedRequestType.fullName.slice(1), responseType: method.resolvedResponseType.fullName.slice(1), requestStream: method.requestStream === true, responseStream: method.responseStream === true },
        ]),
      );
    } else if (nested instanceof protobuf.Namespace) collect(nested);
  }
};
collect(protocol);
writeFileSync(join(target, "services.json"), JSON.stringify(services));
