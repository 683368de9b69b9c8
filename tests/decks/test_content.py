"""What the bundled cards teach: issue 13's corrections pinned, and the interview-next and llm-interview decks' shape.

Each test names the card or topic it guards. Expected facts come from the papers and PyTorch
(checked here where PyTorch can say it), not from the deck text itself.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from studytool.config import Settings
from studytool.decks.loader import load_decks
from studytool.decks.topics import load_topics
from studytool.problems import registry


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    return {deck.deck: deck for deck in load_decks(Settings(home=tmp_path_factory.mktemp("home")))}


@pytest.fixture(scope="module")
def cards(decks):
    return {card.id: card for deck in decks.values() for card in deck.cards}


TOPICS = {topic.id: topic for topic in load_topics()}


def text_of(card) -> str:
    """Everything a card shows: question, options, answer text, why."""
    body = card.body
    parts = [body.get("q", ""), body.get("statement", ""), body.get("opposite", ""), str(body.get("a", "")),
             *body.get("options", ()), card.why or ""]
    return "\n".join(parts)


def topic_text(topic_id: str) -> str:
    topic = TOPICS[topic_id]
    return "\n".join([topic.summary, *topic.formulas, *topic.mistakes])


# --- the second note, named honestly ------------------------------------------------------------


def test_the_second_note_is_named_for_what_it_is(decks):
    deck = decks["transformer-arch"]
    assert "cs336-architecture" not in decks and deck.formerly == ("cs336-architecture",)
    assert "《3 transformer架构》" in deck.source and "CS336" not in deck.title + deck.source
    assert not any(card.source.startswith("CS336") for d in decks.values() for card in d.cards)


# --- 1. the causal mask at inference --------------------------------------------------------------


def test_the_causal_mask_is_not_said_to_be_unneeded_at_inference():
    text = topic_text("causal-mask")
    assert "prefill" in text and "KV cache" in text   # several positions at once need it; one new query does not
    assert "推理时未来的词根本还没生成" not in text


def test_the_causal_mask_is_numbered_by_input_position_and_placed_in_every_decoder_block(cards):
    assert "第一个注意力" not in text_of(cards["mask-causal-where"])
    assert "每个 decoder block" in cards["mask-causal-where"].body["options"][0]
    assert "位置 i" in TOPICS["causal-mask"].summary and "预测第 i 个词时只能看第 0 到 i−1" not in topic_text("causal-mask")


# --- 2. residuals under the notes' Post-LN -------------------------------------------------------------


def test_a_zero_sublayer_gives_ln_x_under_post_ln_not_x(cards):
    card = cards["res-identity-fallback"]
    assert card.kind == "truefalse" and card.body["answer"] is False
    assert "LN(x + F(x))" in card.body["statement"] and "LN(x)" in card.body["opposite"]
    assert "post-pre-ln" in card.why


def test_residual_claims_say_they_hold_for_the_sum_or_pre_ln(cards):
    assert "LN(x)" in cards["res-why-add"].body["a"] and "Pre-LN" in cards["res-why-add"].body["a"]
    assert "Post-LN" in (cards["res-gradient-path"].why or "")
    summary = TOPICS["residual"].summary
    assert "LN(x + F(x))" in summary and "2002.04745" in summary and "post-pre-ln" in summary


def test_the_identity_fallback_really_fails_under_post_ln():
    torch = pytest.importorskip("torch")
    x = torch.tensor([[3.0, -1.0, 2.0, 8.0]])
    post_ln = torch.nn.LayerNorm(4)(x + torch.zeros_like(x))   # F ≡ 0
    assert not torch.allclose(post_ln, x)                      # LN(x) ≠ x
    assert torch.allclose(x + torch.zeros_like(x), x)          # the sum (and Pre-LN's x + F(LN(x))) is x


# --- 3. LayerNorm's epsilon -----------------------------------------------------------------------------------


def test_ln_formula_accepts_the_root_of_variance_plus_eps_and_names_the_notes_form(cards):
    answer = cards["ln-formula-cs336"].body["a"]
    assert "√(σ² + ε)" in answer and "(σ + ε)" in answer and "笔记" in answer
    assert any("√(σ² + ε)" in formula for formula in TOPICS["layernorm"].formulas)


# --- 4. where the L² term takes over --------------------------------------------------------------------------


def test_the_block_crossover_is_6d_and_the_one_projection_card_says_so(cards):
    assert "6d" in (cards["gen-cost-crossover"].why or "") and "6d" in TOPICS["shapes-cost"].summary
    block = cards["gen-cost-block"].pose()
    assert block.answer == 6 * 512   # 2·L²·d = 4·L·d² + 2·L·d·4d at d = 512
    crossover = cards["gen-cost-crossover"].pose()
    assert crossover.answer == 512 and "主导" not in crossover.prompt


def test_cost_counts_are_small_enough_to_work_out_by_hand():
    generator = registry.get("attention_cost")
    for seed in range(200):
        for ask in ("scores", "projection"):
            assert generator.draw(np.random.default_rng(seed), ask=ask).answer < 10**7   # no 12-digit exercise


# --- 5, 6. fixed text of generated cards holds for every variant --------------------------------------------


def test_a_generated_cards_fixed_why_never_names_its_examples_drawn_values(decks):
    """A value pinned only in `example` is redrawn for every other showing: the why may not quote it."""
    for deck in decks.values():
        for card in deck.cards:
            if card.kind != "generated" or not card.why:
                continue
            drawn = {name: value for name, value in card.body.get("example", {}).items()
                     if name not in card.body.get("params", {}) and not isinstance(value, (list, dict))}
            for name, value in drawn.items():
                assert not re.search(rf"\b{re.escape(name)}\s*=\s*{re.escape(str(value))}\b", card.why), (card.key, name)


@pytest.mark.parametrize("card_id, words", [
    ("gen-pe-value", ["d=3", "只有 sin 没有配对的 cos"]),
    ("gen-tf-predict", ["目标是结束符 <eos>。"]),
    ("gen-ln-invariance", ["所以自测 Q2 与数值例答案相同"]),
    ("gen-bn-vs-ln-output", ["完全不同"]),
])
def test_variant_specific_words_left_the_fixed_why(cards, card_id, words):
    assert not any(word in (cards[card_id].why or "") for word in words)


def test_the_variant_specific_words_are_in_the_worked_solution():
    pe = registry.get("positional_encoding").draw(np.random.default_rng(0), d_model=5, pos=2, j=4, ask="value")
    assert "只有 sin" in pe.solution[-1]
    paired = registry.get("positional_encoding").draw(np.random.default_rng(0), d_model=6, pos=2, j=4, ask="value")
    assert "只有 sin" not in " ".join(paired.solution)
    tf = registry.get("teacher_forcing")
    last = tf.draw(np.random.default_rng(0), target=["我", "爱", "AI"], source="I love AI", t=3, ask="predict")
    first = tf.draw(np.random.default_rng(0), target=["我", "爱", "AI"], source="I love AI", t=0, ask="predict")
    assert "<eos>" in last.solution[-1] and "我" in first.solution[-1] and "<eos>" not in first.solution[-1]
    assert "编号" not in last.prompt   # its options are lettered; only sequence questions number their items


def test_the_padding_mask_cards_explain_right_and_left_padding(cards):
    where = cards["mask-padding-where"]
    assert "句尾" in where.body["q"] and "左侧" in where.why and "损失" in text_of(where)
    assert "左侧" in cards["mask-padding-encoder-only-mistake"].why
    assert "左侧" in TOPICS["padding-mask"].summary


# --- 7. facts -----------------------------------------------------------------------------------------------


def test_exposure_bias_remedies_change_training_and_beam_search_is_only_decoding(cards):
    answer = cards["exposure-bias"].body["a"]
    assert all(remedy in answer for remedy in ("scheduled sampling", "序列级训练", "professor forcing"))
    assert "beam search 只是解码" in answer


def test_batchnorm_of_one_sample_is_what_pytorch_does(cards):
    torch = pytest.importorskip("torch")
    bn = torch.nn.BatchNorm1d(2)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn(torch.tensor([[3.0, 7.0]]))
    out = bn.eval()(torch.tensor([[3.0, 7.0]]))
    assert torch.allclose(out, torch.tensor([[3.0, 7.0]]), atol=1e-4)
    card = cards["bn-batch-of-one-torch"]
    right = card.body["options"][ord(card.body["answer"]) - ord("A")]
    assert "报错" in right and "[3, 7]" in right and "bn-batch-of-one-vector" not in cards


def test_gpt1_was_post_ln_and_bert_has_learned_positions_segments_and_gelu():
    post_pre = topic_text("post-pre-ln")
    assert "GPT-1" in post_pre and "GPT-2" in post_pre
    bert = topic_text("bert")
    assert "GELU" in bert and "段嵌入" in bert and "学出来的位置嵌入" in bert


def test_the_encoder_topic_keeps_n_for_the_length():
    assert not any("Block_N" in formula for formula in TOPICS["encoder"].formulas)


def test_one_letter_for_the_head_count_and_one_word_for_shape(decks):
    for card in (card for deck in decks.values() for card in deck.cards):
        assert not re.search(r"\bM\s*=\s*8|/\s*M\b", text_of(card)), card.key
        assert "shape" not in text_of(card) + card.source, card.key   # 形状, as the rest of the text


# --- 8. trivia became why-questions ---------------------------------------------------------------------------


def test_trivia_cards_are_gone(cards):
    gone = ("lecture-split", "post-pre-readings", "s2s-lineage", "residual-ab", "pe-odd-denominator",
            "attn-library", "add-norm-roles")
    assert not any(card_id in cards for card_id in gone)
    for why in ("post-pre-xiong-finding", "s2s-transformer-change", "residual-add-not-concat", "attn-k-vs-v",
                "add-norm-highway-limit"):
        assert cards[why].why and "第几页" not in cards[why].body["q"]   # a reason to explain, not a page to recall


# --- the interview-next deck ----------------------------------------------------------------------------------

NEW_TOPICS = ("qk-projections", "attention-vs-rnn", "kv-cache", "model-families", "embedding-tying", "model-size",
              "training-recipe", "additive-attention", "modern-decoder", "decoding")


def test_every_new_topic_has_an_explain_entry_and_two_cards(decks):
    deck = decks["interview-next"]
    for topic_id in NEW_TOPICS:
        assert TOPICS[topic_id].group == "beyond" and TOPICS[topic_id].mistakes
        assert sum(card.topic == topic_id for card in deck.cards) >= 2, topic_id
    assert {card.topic for card in deck.cards} == set(NEW_TOPICS)


def test_the_new_deck_computes_its_numbers_with_five_generators(decks):
    generated = [card for card in decks["interview-next"].cards if card.kind == "generated"]
    assert {card.body["generator"] for card in generated} >= {
        "kv_cache", "tied_embeddings", "transformer_params", "warmup_lr", "temperature_softmax", "rms_norm",
        "rope_score"}
    for card in generated:
        answers = {str(card.pose(seed).answer) for seed in range(100)}
        small = registry.get(card.body["generator"]).small_answer_space(card.body.get("params", {}))
        assert len(answers) >= (2 if small else 10), card.key   # drawn, not memorisable (or few by nature, and says why)


@pytest.mark.parametrize("card_id, expected", [
    ("gen-kv-total", 2 * 12 * 1 * 1024 * 768 * 2 / 2**20),      # GPT-2 small, fp16, 1024 tokens: 36 MiB
    ("gen-tie-encdec", 2 * 37000 * 512),                        # 3 matrices -> 1
    ("gen-tie-decoder", 50257 * 768),                           # GPT-2: 2 -> 1
    ("gen-model-base", 63_121_544 / 1e6),                       # nn.Transformer 44,140,544 + 37000·512 + 37000
    ("gen-warmup-peak", 1e4 / (512 * 4000) ** 0.5),             # (d · warmup)^-0.5, in 1e-4
    ("gen-rope-score", -0.8414709848078965),                    # q·R_1 k = (1, 0)·(−sin 1, cos 1) = −sin 1
])
def test_the_new_decks_pinned_examples(cards, card_id, expected):
    assert cards[card_id].pose().answer == pytest.approx(expected)


def test_the_modern_decoders_swiglu_width_keeps_the_ffns_parameters():
    from studytool import engine

    d = 4096
    relu = engine.count_params("ffn", d_model=d, d_ff=4 * d, bias=False)
    swiglu = engine.count_params("swiglu_ffn", d_model=d, d_ff=8 * d // 3, bias=False)
    assert abs(swiglu - relu) / relu < 1e-3   # d_ff = 8d/3 (LLaMA rounds 10,922 up to 11,008)


# --- the llm-interview deck (issue 22 item 1): the LLM era, beyond the notes ----------------------------------------

LLM_TOPICS = ("gqa", "flops", "training-memory", "flash-attention", "tokenization", "nucleus-sampling", "llm-params",
              "scaling-laws", "moe", "mixed-precision", "lora", "speculative-decoding", "long-context",
              "paged-attention", "quantization", "alignment")


def test_the_llm_deck_says_it_goes_beyond_the_notes_and_covers_every_topic(decks):
    deck = decks["llm-interview"]
    assert deck.source.startswith("超出笔记") and "CS336" in deck.source
    generated = [card for card in deck.cards if card.kind == "generated"]
    assert len(deck.cards) >= 120 and len(generated) >= 20
    assert {card.topic for card in deck.cards} == set(LLM_TOPICS)
    for topic_id in LLM_TOPICS:   # a recall, choice or true/false card beside the numbers on every topic
        assert TOPICS[topic_id].group == "llm" and TOPICS[topic_id].mistakes and TOPICS[topic_id].generator
        assert any(card.topic == topic_id and card.kind in ("recall", "choice", "truefalse", "order")
                   for card in deck.cards), topic_id


@pytest.mark.parametrize("card_id, expected", [
    ("gen-gqa-per-token", 2 * 32 * 8 * 128 * 2 / 1024),        # Llama-3-8B, bf16: 128 KiB a token
    ("gen-gqa-total", 2 * 32 * 8 * 128 * 2 * 4 * 8192 / 2**30),  # ... four sequences of 8192: 4 GiB
    ("gen-gqa-saved", 2 * 32 * (32 - 8) * 128 * 2 * 8192 / 2**30),   # against 32 K/V heads: 3 GiB saved
    ("gen-params-gpt2", 124_439_808),                          # GPT-2 small
])
def test_the_llm_decks_pinned_examples(cards, card_id, expected):
    assert cards[card_id].pose().answer == pytest.approx(expected)


def test_the_llm_decks_stated_numbers_are_the_formulas():
    # the fixed cards quote these; each is recomputed here from its definition
    assert (2 - 2**-10) * 2**15 == 65504                       # fp16's largest finite value
    assert 2**-7 == 0.0078125                                 # bf16's machine epsilon (8 significand bits)
    assert 1.75 * 2**8 == 448 and 1.75 * 2**15 == 57344       # E4M3 and E5M2 maxima
    assert round(6 * 175e9 * 300e9 / 1e23, 2) == 3.15          # GPT-3's 6ND
    assert round((1 - 0.8**5) / 0.2, 2) == 3.36                # speculative decoding, alpha 0.8, gamma 4
    assert 512 + 64 == 576 and 2 * 128 * 128 == 32768          # MLA's cache against MHA's, DeepSeek-V2
    assert round(math.sqrt(5.76e23 / 120) / 1e9, 1) == 69.3     # Chinchilla's budget: N about 70B
