#!/usr/bin/python3
"""cri_client.py: the few CRI calls a kubelet makes, for tests/engines/cri.bats.

There is no kubelet or crictl on Debian 12, so the suite drives containerd's
CRI plugin over its gRPC socket itself. cri.proto (beside this file) is the
subset of the CRI API used; it is compiled at run time with grpc_tools into
$CRI_STUB_DIR (made once by the suite) or a temporary directory.

usage: cri_client.py --socket PATH [--api v1|v1alpha2] COMMAND ARGS...

  version                             VersionResponse as JSON
  status                              StatusResponse (runtime conditions)
  run-pod-sandbox CONFIG HANDLER      PodSandboxConfig JSON file; prints the id
  pod-status POD                      PodSandboxStatusResponse (verbose) as JSON
  stop-pod POD | remove-pod POD
  create-container POD CONFIG POD-CONFIG   ContainerConfig and
                                      PodSandboxConfig JSON files; prints the id
  start-container ID | stop-container ID [TIMEOUT] | remove-container ID
  container-status ID                 ContainerStatusResponse (verbose) as JSON
  update-container ID RESOURCES       LinuxContainerResources JSON (a string)
  exec-sync ID TIMEOUT CMD...         the command's stdout and stderr, and
                                      its exit code as ours
  list                                {"pods": [...], "containers": [...]}

JSON uses the proto field names (snake_case). A failed RPC prints
"cri_client: METHOD: CODE: DETAILS" on stderr and exits 125.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load_stubs(api):
    """The generated cri_pb2 and cri_pb2_grpc modules for package runtime.API."""
    out = os.environ.get("CRI_STUB_DIR")
    tmp = None
    if not out:
        tmp = out = tempfile.mkdtemp(prefix="cri-stubs.")
    out = os.path.join(out, api)
    if not os.path.exists(os.path.join(out, "cri_pb2_grpc.py")):
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(HERE, "cri.proto")) as f:
            text = f.read()
        # v1alpha2 has the same messages and numbers under another package.
        text = text.replace("package runtime.v1;", "package runtime.%s;" % api)
        work = tempfile.mkdtemp(prefix="cri-proto.", dir=out)
        with open(os.path.join(work, "cri.proto"), "w") as f:
            f.write(text)
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc",
                        "-I", work, "--python_out", work,
                        "--grpc_python_out", work, "cri.proto"], check=True)
        # Renamed into place last: a concurrent client never sees half a set.
        for name in ("cri_pb2.py", "cri_pb2_grpc.py"):
            os.replace(os.path.join(work, name), os.path.join(out, name))
        shutil.rmtree(work)
    sys.path.insert(0, out)
    pb2 = importlib.import_module("cri_pb2")
    grpc_mod = importlib.import_module("cri_pb2_grpc")
    if tmp:
        shutil.rmtree(tmp)
    return pb2, grpc_mod


def main(argv):
    import grpc
    from google.protobuf import json_format

    sock, api = None, "v1"
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--socket":
            sock = argv.pop(0)
        elif opt == "--api":
            api = argv.pop(0)
        else:
            sys.exit("cri_client: unknown option %s" % opt)
    if not sock or not argv:
        sys.exit(__doc__)
    cmd, args = argv[0], argv[1:]

    pb, pb_grpc = load_stubs(api)
    channel = grpc.insecure_channel("unix://" + os.path.abspath(sock))
    rt = pb_grpc.RuntimeServiceStub(channel)

    def load(path, msg):
        with open(path) as f:
            return json_format.Parse(f.read(), msg)

    def show(msg):
        print(json_format.MessageToJson(msg, preserving_proto_field_name=True,
                                        indent=None))

    def call(method, req, timeout=60):
        try:
            return getattr(rt, method)(req, timeout=timeout)
        except grpc.RpcError as e:
            print("cri_client: %s: %s: %s" % (method, e.code().name, e.details()),
                  file=sys.stderr)
            sys.exit(125)

    if cmd == "version":
        show(call("Version", pb.VersionRequest(version="v1")))
    elif cmd == "status":
        show(call("Status", pb.StatusRequest()))
    elif cmd == "run-pod-sandbox":
        req = pb.RunPodSandboxRequest(config=load(args[0], pb.PodSandboxConfig()),
                                      runtime_handler=args[1])
        print(call("RunPodSandbox", req, timeout=120).pod_sandbox_id)
    elif cmd == "pod-status":
        show(call("PodSandboxStatus", pb.PodSandboxStatusRequest(pod_sandbox_id=args[0], verbose=True)))
    elif cmd == "stop-pod":
        call("StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=args[0]), timeout=120)
    elif cmd == "remove-pod":
        call("RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=args[0]), timeout=120)
    elif cmd == "create-container":
        req = pb.CreateContainerRequest(
            pod_sandbox_id=args[0],
            config=load(args[1], pb.ContainerConfig()),
            sandbox_config=load(args[2], pb.PodSandboxConfig()))
        print(call("CreateContainer", req, timeout=120).container_id)
    elif cmd == "start-container":
        call("StartContainer", pb.StartContainerRequest(container_id=args[0]), timeout=120)
    elif cmd == "stop-container":
        t = int(args[1]) if len(args) > 1 else 10
        call("StopContainer", pb.StopContainerRequest(container_id=args[0], timeout=t),
             timeout=t + 60)
    elif cmd == "remove-container":
        call("RemoveContainer", pb.RemoveContainerRequest(container_id=args[0]), timeout=120)
    elif cmd == "container-status":
        show(call("ContainerStatus", pb.ContainerStatusRequest(container_id=args[0], verbose=True)))
    elif cmd == "update-container":
        res = json_format.Parse(args[1], pb.LinuxContainerResources())
        call("UpdateContainerResources",
             pb.UpdateContainerResourcesRequest(container_id=args[0], linux=res))
    elif cmd == "exec-sync":
        t = int(args[1])
        resp = call("ExecSync", pb.ExecSyncRequest(container_id=args[0], cmd=args[2:],
                                                   timeout=t), timeout=t + 60)
        sys.stdout.buffer.write(resp.stdout)
        sys.stderr.buffer.write(resp.stderr)
        sys.stdout.flush()
        sys.exit(resp.exit_code)
    elif cmd == "list":
        pods = call("ListPodSandbox", pb.ListPodSandboxRequest())
        ctrs = call("ListContainers", pb.ListContainersRequest())
        conv = lambda m: json_format.MessageToDict(m, preserving_proto_field_name=True)
        print(json.dumps({"pods": [conv(p) for p in pods.items],
                          "containers": [conv(c) for c in ctrs.containers]}))
    else:
        sys.exit("cri_client: unknown command %s" % cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
