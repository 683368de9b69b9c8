"""The sentence pairs teacher-forcing questions translate (masks.py), and the longer ones its level 3 draws
(levels.py): data of their own, so that neither module imports the other."""

from __future__ import annotations

# (source sentence, target words): the notes' own pairs first.
SENTENCES = (
    ("I love AI", ("我", "爱", "AI")),
    ("machine learning", ("機", "器", "學", "習")),
    ("I am a dog", ("我", "是", "一条", "狗")),
    ("deep learning is very powerful", ("深度", "学习", "非常", "强大")),
    ("good morning", ("早上", "好")),
    ("see you tomorrow", ("明天", "见")),
    ("attention is all you need", ("注意力", "就是", "你", "需要", "的", "一切")),
    ("the cat sat down", ("猫", "坐", "下", "了")),
)
# Longer pairs for level 3 (levels.py): more shifted tokens to place and order.
LONGER_SENTENCES = (
    ("attention is all you need", ("注意力", "就是", "你", "需要", "的", "一切")),
    ("the cat sat on the mat", ("猫", "坐", "在", "垫子", "上")),
    ("I want to learn deep learning", ("我", "想", "学", "深度", "学习")),
    ("we read the paper today", ("我们", "今天", "读", "这篇", "论文")),
    ("the model translated every sentence", ("模型", "翻译", "了", "每个", "句子")),
)
