package main

// npmLauncher is the main npm package's bin/ply.js: it runs the binary of
// the platform package that fits this system with ply's arguments,
// standard streams and exit status. Ctrl+C reaches ply from the terminal
// directly; SIGTERM and SIGHUP sent to the launcher are passed on.
const npmLauncher = `#!/usr/bin/env node
"use strict";
const { spawn } = require("child_process");

const platform = process.platform + "-" + process.arch;
const supported = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];
if (!supported.includes(platform)) {
  console.error("ply: no ply binary is published for " + platform + "; supported: " + supported.join(", "));
  process.exit(1);
}
const pkg = "@plyhq/ply-" + platform;
const exe = process.platform === "win32" ? "ply.exe" : "ply";
let bin;
try {
  bin = require.resolve(pkg + "/bin/" + exe);
} catch (e) {
  console.error("ply: the package " + pkg + " that carries ply's binary for " + platform +
    " is not installed; reinstall @plyhq/ply without --omit=optional or --no-optional");
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
process.on("SIGINT", () => {});
for (const sig of ["SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  console.error("ply: cannot run " + bin + ": " + err.message);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
`
