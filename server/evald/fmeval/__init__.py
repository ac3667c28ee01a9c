"""AWS FMEval's model evaluations: semantic robustness, prompt stereotyping, summarization accuracy."""  # noqa: E501
